/** Delete-account confirmation. Variables: url; name. */
import { greeting, type MailTemplate } from "./letter.js";

export const deleteAccount: MailTemplate = {
  name: "delete-account",
  required: ["url"],
  letter: (vars, { appName }) => ({
    subject: `Confirm deleting your ${appName} account`,
    heading: "Confirm deleting your account",
    intro: [greeting(vars), `You asked to delete your ${appName} account. Deleting it removes the account and its data, and cannot be undone.`],
    action: { label: "Delete my account", url: vars.url! },
    outro: ["If you did not ask for this, ignore this email and your account stays as it is. Consider changing your password."],
  }),
};
