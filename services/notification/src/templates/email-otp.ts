/**
 * A mailed code (email OTP) for signing in, verifying the address or resetting the password. Variables:
 * code, purpose (sign-in, email-verification, forget-password); url (a page to enter it on), name. The code stays out of the subject
 * (subjects are logged and shown in notification previews).
 */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

const PURPOSES = ["sign-in", "email-verification", "forget-password"] as const;
type Purpose = (typeof PURPOSES)[number];

export const isEmailOtpPurpose = (value: string | undefined): value is Purpose => PURPOSES.includes(value as Purpose);

export const emailOtp: MailTemplate = {
  name: "email-otp",
  required: ["code", "purpose"],
  letter: (vars, { appName, text }) => {
    // renderTemplate checks the purpose first (a TemplateError names it): never a guess at the wording.
    const t = text["email-otp"][vars.purpose as Purpose];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), fill(t.intro, { appName })],
      code: vars.code!,
      ...(vars.url ? { action: { label: t.action, url: vars.url } } : {}),
      outro: [t.outro],
    };
  },
};
