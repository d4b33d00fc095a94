/**
 * One-time sign-in code. Variables: code; url, name. The code is a secret: it stays out of the subject
 * (subjects are logged and shown in notification previews).
 */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate } from "./letter.js";

export const signInCode: MailTemplate = {
  name: "sign-in-code",
  required: ["code"],
  letter: (vars, { appName, text }) => {
    const t = text["sign-in-code"];
    return {
      subject: fill(t.subject, { appName }),
      heading: t.heading,
      intro: [greeting(vars, text), fill(t.intro, { appName })],
      code: vars.code!,
      ...(vars.url ? { action: { label: t.action, url: vars.url } } : {}),
      outro: [t.outro],
    };
  },
};
