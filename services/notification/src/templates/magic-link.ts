/** Sign-in link (magic link): one use, a short lifetime. Variables: url; name. */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const magicLink: MailTemplate = {
  name: "magic-link",
  required: ["url"],
  letter: (vars, { appName, text }) => {
    const t = text["magic-link"];
    return {
      subject: fill(t.subject, { appName }),
      heading: fill(t.heading, { appName }),
      intro: [greeting(vars, text), fill(t.intro, { appName })],
      action: { label: t.action, url: vars.url! },
      outro: [t.outro],
    };
  },
};
