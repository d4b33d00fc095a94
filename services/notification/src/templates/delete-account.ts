/** Delete-account confirmation. Variables: url; name. */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const deleteAccount: MailTemplate = {
  name: "delete-account",
  required: ["url"],
  letter: (vars, { appName, text }) => {
    const t = text["delete-account"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), fill(t.intro, { appName })],
      action: { label: t.action, url: vars.url! },
      outro: [t.outro],
    };
  },
};
