/**
 * Step 1 of an email change, sent to the current address: approve the change (identity's change-email for
 * a verified user; the approval then mails step 2, change-email-new-address, to the new address).
 * Variables: url; name, email, new_email.
 */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const changeEmail: MailTemplate = {
  name: "change-email",
  required: ["url"],
  letter: (vars, { appName, text }) => {
    const t = text["change-email"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), vars.new_email ? fill(t.intro, { appName, newEmail: vars.new_email }) : fill(t.introWithoutNewEmail, { appName })],
      action: { label: t.action, url: vars.url! },
      outro: [t.outro],
    };
  },
};
