/**
 * One-time sign-in code. Variables: code; url, name. The code is a secret: it stays out of the subject
 * (subjects are logged and shown in notification previews).
 */
import { greeting, type MailTemplate } from "./letter.js";

export const signInCode: MailTemplate = {
  name: "sign-in-code",
  required: ["code"],
  letter: (vars, { appName }) => ({
    subject: `Your sign-in code for ${appName}`,
    heading: "Your sign-in code",
    intro: [greeting(vars), `Enter this code to sign in to ${appName}. It can be used once.`],
    code: vars.code!,
    ...(vars.url ? { action: { label: "Sign in", url: vars.url } } : {}),
    outro: ["If you did not try to sign in, you can ignore this email. Someone may have typed your address by mistake."],
  }),
};
