/**
 * Organization invitation. Variables: url, organization_name; inviter_name, role, name. The names are what
 * other people typed: each is shown through shownName (bounded, no links), and the mail says who sent it.
 */
import { fill } from "./catalogues/index.js";
import { greeting, type MailTemplate, shownName } from "./letter.js";

export const organizationInvitation: MailTemplate = {
  name: "organization-invitation",
  required: ["url", "organization_name"],
  letter: (vars, { appName, text }) => {
    const t = text["organization-invitation"];
    const organization = shownName(vars.organization_name!) || t.unnamed;
    const inviter = vars.inviter_name ? shownName(vars.inviter_name) : "";
    const values = { appName, organization, inviter, role: vars.role ?? "" };
    const intro = inviter ? (vars.role ? t.introByInviterWithRole : t.introByInviter) : vars.role ? t.introWithRole : t.intro;
    return {
      subject: fill(inviter ? t.subjectByInviter : t.subject, values),
      heading: fill(t.heading, values),
      intro: [greeting(vars.name ? { name: shownName(vars.name) } : {}, text), fill(intro, values)],
      action: { label: t.action, url: vars.url! },
      outro: [fill(t.sentBy, values), t.notExpected],
    };
  },
};
