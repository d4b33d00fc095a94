/** Password reset: a link to choose a new password. Variables: url; name. */
import { greeting, type MailTemplate } from "./letter.js";

export const passwordReset: MailTemplate = {
  name: "password-reset",
  required: ["url"],
  letter: (vars, { appName }) => ({
    subject: `Reset your ${appName} password`,
    heading: "Reset your password",
    intro: [greeting(vars), `Someone asked to reset the password of your ${appName} account. Follow the link below to choose a new one.`],
    action: { label: "Reset password", url: vars.url! },
    outro: ["If you did not ask for this, you can ignore this email: your password stays as it is."],
  }),
};
