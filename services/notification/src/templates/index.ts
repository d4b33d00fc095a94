/**
 * Renders a named template in the mail's language: checks its required variables (and that links are
 * http(s) URLs), then composes the text and HTML bodies. A missing or bad variable is a TemplateError naming it.
 */
import { MAIL_CATALOGUES } from "./catalogues/index.js";
import { changeEmail } from "./change-email.js";
import { changeEmailNewAddress } from "./change-email-new-address.js";
import { deleteAccount } from "./delete-account.js";
import { emailOtp, isEmailOtpPurpose } from "./email-otp.js";
import { emailVerification } from "./email-verification.js";
import { compose, type MailContext, type MailTemplate, type RenderedMail, type TemplateName, type Variables } from "./letter.js";
import { magicLink } from "./magic-link.js";
import { organizationInvitation } from "./organization-invitation.js";
import { passwordReset } from "./password-reset.js";
import { signInCode } from "./sign-in-code.js";

export type { MailContext, RenderedMail, TemplateName, Variables } from "./letter.js";

export const TEMPLATES: Readonly<Record<TemplateName, MailTemplate>> = {
  "email-verification": emailVerification,
  "password-reset": passwordReset,
  "change-email": changeEmail,
  "change-email-new-address": changeEmailNewAddress,
  "delete-account": deleteAccount,
  "organization-invitation": organizationInvitation,
  "sign-in-code": signInCode,
  "magic-link": magicLink,
  "email-otp": emailOtp,
};

const MAX_VARIABLE_LENGTH = 2_000;

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Line breaks and other control characters, as one run. A name or organization name is user input; with its
 * line breaks kept, it could lay out paragraphs of its own in the text body (a forged "Reset password:
 * https://evil.example" line above the real one), as HTML escaping alone does not prevent there.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
const CONTROL_RUN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** Every variable as one line of text. */
function oneLine(vars: Variables): Variables {
  return Object.fromEntries(Object.entries(vars).map(([key, value]) => [key, value?.replace(CONTROL_RUN, " ")]));
}

export function renderTemplate(name: TemplateName, rawVars: Variables, context: MailContext): RenderedMail {
  const template = TEMPLATES[name];
  const vars = oneLine(rawVars);
  for (const key of template.required) {
    if (!vars[key]?.trim()) throw new TemplateError(`variables.${key} is required for ${name}`);
  }
  for (const [key, value] of Object.entries(vars)) {
    if (value && value.length > MAX_VARIABLE_LENGTH) throw new TemplateError(`variables.${key} is too long`);
  }
  // Why: the url lands in an href; a javascript: or data: link in a trusted sender's mail is a phishing aid.
  if (vars.url && !isHttpUrl(vars.url)) throw new TemplateError("variables.url must be an http(s) URL");
  if (name === "email-otp" && !isEmailOtpPurpose(vars.purpose)) throw new TemplateError("variables.purpose must be sign-in, email-verification or forget-password");
  const text = MAIL_CATALOGUES[context.language ?? "en"];
  return compose(template.letter(vars, { appName: context.appName, text }), context, text);
}
