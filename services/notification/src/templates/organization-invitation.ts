/** Organization invitation. Variables: url, organization_name; inviter_name, role, name. */
import { greeting, type MailTemplate } from "./letter.js";

export const organizationInvitation: MailTemplate = {
  name: "organization-invitation",
  required: ["url", "organization_name"],
  letter: (vars, { appName }) => {
    const organization = vars.organization_name!;
    const who = vars.inviter_name ? `${vars.inviter_name} invited you` : "You have been invited";
    return {
      subject: vars.inviter_name
        ? `${vars.inviter_name} invited you to join ${organization} on ${appName}`
        : `You are invited to join ${organization} on ${appName}`,
      heading: `Join ${organization}`,
      intro: [
        greeting(vars),
        `${who} to join the organization ${organization} on ${appName}${vars.role ? ` as ${vars.role}` : ""}.`,
      ],
      action: { label: "Accept invitation", url: vars.url! },
      outro: ["If you were not expecting this invitation, you can ignore this email."],
    };
  },
};
