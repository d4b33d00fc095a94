/**
 * Organization invitation. Variables: url, organization_name; inviter_name, role, name. The names are what
 * other people typed: each is shown through shownName (bounded, no links), and the mail says who sent it.
 */
import { greeting, type MailTemplate, shownName } from "./letter.js";

export const organizationInvitation: MailTemplate = {
  name: "organization-invitation",
  required: ["url", "organization_name"],
  letter: (vars, { appName }) => {
    const organization = shownName(vars.organization_name!) || "(no name)";
    const inviter = vars.inviter_name ? shownName(vars.inviter_name) : "";
    const who = inviter ? `${inviter} invited you` : "You have been invited";
    return {
      subject: inviter ? `${inviter} invited you to join ${organization} on ${appName}` : `You are invited to join ${organization} on ${appName}`,
      heading: `Join ${organization}`,
      intro: [greeting(vars.name ? { name: shownName(vars.name) } : {}), `${who} to join the organization ${organization} on ${appName}${vars.role ? ` as ${vars.role}` : ""}.`],
      action: { label: "Accept invitation", url: vars.url! },
      outro: [
        `This email was sent by ${appName}, the sign-in service of this organization. The organization's and the inviter's names were typed by its members; ${appName} did not check them.`,
        "If you were not expecting this invitation, you can ignore this email.",
      ],
    };
  },
};
