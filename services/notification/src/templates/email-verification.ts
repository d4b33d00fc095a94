/** Email verification: confirm the address a user signed up (or changed to) with. Variables: url; name, email. */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const emailVerification: MailTemplate = {
  name: "email-verification",
  required: ["url"],
  letter: (vars, { appName, text }) => {
    const t = text["email-verification"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), vars.email ? fill(t.intro, { email: vars.email, appName }) : fill(t.introWithoutEmail, { appName })],
      action: { label: t.action, url: vars.url! },
      outro: [fill(t.outro, { appName })],
    };
  },
};
