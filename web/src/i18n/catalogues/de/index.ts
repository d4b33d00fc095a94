import type { Catalogue } from "../en";
import account from "./account";
import admin from "./admin";
import apiKeys from "./api-keys";
import common from "./common";
import errors from "./errors";
import identityProvider from "./identity-provider";
import mailSignIn from "./mail-sign-in";
import mailbox from "./mailbox";
import organizations from "./organizations";
import passkeys from "./passkeys";
import passwordReset from "./password-reset";
import redirectErrors from "./redirect-errors";
import signIn from "./sign-in";
import signUp from "./sign-up";
import twoFactor from "./two-factor";
import verifyEmail from "./verify-email";

const de: Catalogue = {
  common,
  errors,
  signIn,
  mailSignIn,
  signUp,
  passwordReset,
  verifyEmail,
  twoFactor,
  passkeys,
  apiKeys,
  account,
  organizations,
  identityProvider,
  admin,
  mailbox,
  redirectErrors,
};

export default de;
