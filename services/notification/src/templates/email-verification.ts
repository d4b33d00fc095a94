/** Email verification: confirm the address a user signed up (or changed to) with. Variables: url; name, email. */
import { greeting, type MailTemplate } from "./letter.js";

export const emailVerification: MailTemplate = {
  name: "email-verification",
  required: ["url"],
  letter: (vars, { appName }) => ({
    subject: `Verify your email address for ${appName}`,
    heading: "Verify your email address",
    intro: [greeting(vars), `Please confirm that ${vars.email ?? "this"} is your email address for ${appName} by following the link below.`],
    action: { label: "Verify email address", url: vars.url! },
    outro: [`If you did not create an account with ${appName}, you can ignore this email.`],
  }),
};
