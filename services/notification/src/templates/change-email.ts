/** Change-email confirmation, sent to the current address. Variables: url; name, email, new_email. */
import { greeting, type MailTemplate } from "./letter.js";

export const changeEmail: MailTemplate = {
  name: "change-email",
  required: ["url"],
  letter: (vars, { appName }) => ({
    subject: `Confirm your new email address for ${appName}`,
    heading: "Confirm your new email address",
    intro: [
      greeting(vars),
      vars.new_email
        ? `You asked to change the email address of your ${appName} account to ${vars.new_email}. Follow the link below to confirm.`
        : `You asked to change the email address of your ${appName} account. Follow the link below to confirm.`,
    ],
    action: { label: "Confirm email change", url: vars.url! },
    outro: ["If you did not ask for this, you can ignore this email: your address stays as it is."],
  }),
};
