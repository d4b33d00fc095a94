/**
 * Step 2 of an email change, sent to the new address once the old one approved it: confirm the new address
 * (the account already uses it, unverified). Variables: url, email (the new address); name.
 */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const changeEmailNewAddress: MailTemplate = {
  name: "change-email-new-address",
  required: ["url", "email"],
  letter: (vars, { appName, text }) => {
    const t = text["change-email-new-address"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), fill(t.intro, { appName, email: vars.email! })],
      action: { label: t.action, url: vars.url! },
      outro: [t.outro],
    };
  },
};
