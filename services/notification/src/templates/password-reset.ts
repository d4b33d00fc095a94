/** Password reset: a link to choose a new password. Variables: url; name. */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const passwordReset: MailTemplate = {
  name: "password-reset",
  required: ["url"],
  letter: (vars, { appName, text }) => {
    const t = text["password-reset"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), fill(t.intro, { appName })],
      action: { label: t.action, url: vars.url! },
      outro: [t.outro],
    };
  },
};
