/** The English catalogue: the source of every key. Each screen's messages live in their own file. */
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

const en = {
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

/** A catalogue: the English one's shape, every message a string. */
type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };
export type Catalogue = Shape<typeof en>;

export default en as Catalogue;
