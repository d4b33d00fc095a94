/**
 * Organizations: create one (the slug suggested from the name and checked as one types), switch the active
 * one, its members and their roles, invitations and settings; and the invitation page a recipient opens
 * from the mail (/accept-invitation/{id}). Only what the signed-in member may do is offered: the
 * organization answers it (`access`, docs/organizations.md#what-the-caller-may-do). Every destructive or
 * privileged action asks first (ConfirmButton) and says what it did (DoneNotice), with an undo where the
 * platform has an inverse.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { safeImage } from "@auth-platform/runtime/user-image";
import { ApiError, api, errorMessage, type FullOrganization, type Invitation, type Member, type OrganizationAccess, type ScimToken } from "../api";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, Page, SubmitButton } from "../components";
import { translateIfKnown, useLanguage, useT } from "../i18n";
import { activeOrganizationQuery, organizationsQuery, refreshOrganizations } from "../organization-queries";
import { apiBasePath } from "../runtime-config";
import { useSession } from "../session";
import { IdentityProvider, mayManageProviders } from "./identity-provider";
import { Teams } from "./teams";
import { Roles } from "./organization-roles";
import { Domains } from "./organization-domains";
import { ApiKeysSection } from "./api-keys";

/** "Acme Corp." -> "acme-corp": lower case letters and digits joined by single dashes. */
export function slugFrom(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

/** A role as the reader names it: the default roles translated, configured ones as they are called. */
export function roleName(role: string): string {
  return role
    .split(",")
    .map((one) => one.trim())
    .filter(Boolean)
    .map((one) => translateIfKnown(`organizations.roles.${one}`) ?? one)
    .join(", ");
}

const nameOf = (member: Member) => (member.user ? `${member.user.name} (${member.user.email})` : member.userId);

/** What the member may do when the answer does not say (a gateway that predates `access`): nothing but leave. */
const NO_ACCESS: OrganizationAccess = {
  role: "",
  canUpdateOrganization: false,
  canDeleteOrganization: false,
  canInvite: false,
  canCancelInvitations: false,
  assignableRoles: [],
  updatableMemberIds: [],
  removableMemberIds: [],
  ownerRole: "owner",
  canManageTeams: false,
  roleActions: [],
};

/**
 * The newest refusal of a group of actions (not the first one still set) and its alert, remounted for each
 * refusal so that the same message twice is announced, and focused, again.
 */
function useRefusal() {
  const count = useRef(0);
  const [refusal, setRefusal] = useState<{ error: unknown; count: number }>();
  return {
    report: (error: unknown) => {
      count.current += 1;
      setRefusal({ error, count: count.current });
    },
    clear: () => setRefusal(undefined),
    alert: <FormAlert key={refusal?.count} message={refusal ? errorMessage(refusal.error) : undefined} />,
  };
}

/** What the page's actions report: the newest outcome shows, a success or a refusal. */
export interface Outcome {
  /** An action starts: the last refusal goes. */
  started: () => void;
  done: (done: Done) => void;
  refused: (error: unknown) => void;
  changed: () => Promise<unknown>;
}

export function Organizations() {
  const t = useT();
  const queryClient = useQueryClient();
  const session = useSession();
  const organizations = useQuery(organizationsQuery(session.data?.user.id));
  const active = useQuery(activeOrganizationQuery);
  const refusal = useRefusal();
  const [done, setDone] = useState<Done>();
  const outcome: Outcome = {
    started: refusal.clear,
    done: (next) => {
      refusal.clear();
      setDone(next);
    },
    refused: (error) => {
      setDone(undefined);
      refusal.report(error);
    },
    changed: () => refreshOrganizations(queryClient),
  };
  const setActive = useMutation({
    mutationFn: (id: string | null) => api.organization.setActive(id),
    onMutate: outcome.started,
    onError: outcome.refused,
    onSettled: outcome.changed,
  });
  const readError = organizations.error ?? active.error;
  return (
    <Page title={t("organizations.title")} narrow={false}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {refusal.alert}
      {readError && <FormAlert message={errorMessage(readError)} />}
      <section className="card" aria-labelledby="your-orgs-title">
        <h2 id="your-orgs-title">{t("organizations.yours.title")}</h2>
        {organizations.data?.length === 0 && <p>{t("organizations.yours.none")}</p>}
        <ul className="list" aria-label={t("organizations.yours.title")}>
          {organizations.data?.map((org) => {
            const isActive = active.data?.id === org.id;
            return (
              <li key={org.id}>
                <span>
                  <strong>{org.name}</strong> <span className="muted">({org.slug})</span>
                  {isActive && <span className="badge">{t("organizations.yours.active")}</span>}
                </span>
                {!isActive && (
                  <button
                    type="button"
                    onClick={() => setActive.mutate(org.id)}
                    disabled={setActive.isPending}
                    aria-label={t("organizations.yours.switchToName", { name: org.name })}
                  >
                    {t("organizations.yours.switchTo")}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      <CreateOrganization onCreated={outcome.changed} />
      {active.data && <ActiveOrganization key={active.data.id} organization={active.data} outcome={outcome} />}
    </Page>
  );
}

function CreateOrganization({ onCreated }: { onCreated: () => Promise<unknown> }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [checked, setChecked] = useState("");
  const effectiveSlug = slugEdited ? slug : slugFrom(name);
  // The slug is checked once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setChecked(effectiveSlug), 300);
    return () => clearTimeout(timer);
  }, [effectiveSlug]);
  const availability = useQuery({ queryKey: ["slug", checked], queryFn: () => api.organization.checkSlug(checked), enabled: checked.length > 0, retry: false, gcTime: 0 });
  const create = useMutation({
    mutationFn: () => api.organization.create({ name: name.trim(), slug: effectiveSlug }),
    onSuccess: async () => {
      setName("");
      setSlug("");
      setSlugEdited(false);
      // The slug just taken was checked as available before: forget that answer, or typing the same name
      // again within the check's pause would show the stale "available" (the check key would not change).
      setChecked("");
      queryClient.removeQueries({ queryKey: ["slug"] });
      await onCreated();
    },
  });
  // A slug taken meanwhile (after the check) is said next to the field too.
  const createdSlugTaken = create.error instanceof ApiError && create.error.code === "ORGANIZATION_ALREADY_EXISTS";
  const slugTaken = availability.error ? errorMessage(availability.error) : createdSlugTaken ? errorMessage(create.error) : undefined;
  const slugHint = !effectiveSlug
    ? t("organizations.create.slugHint")
    : checked !== effectiveSlug || availability.isFetching
      ? t("organizations.create.checking")
      : slugTaken
        ? undefined
        : availability.isSuccess
          ? t("organizations.create.available", { slug: effectiveSlug })
          : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby="create-org-title">
      <h2 id="create-org-title">{t("organizations.create.title")}</h2>
      <form onSubmit={submit} noValidate>
        <FormAlert key={create.submittedAt} message={create.error && !createdSlugTaken ? errorMessage(create.error) : undefined} />
        {create.isSuccess && <FormAlert tone="success" message={t("organizations.create.created", { name: create.data.name })} />}
        <Field label={t("organizations.create.name")} name="orgName" required value={name} onChange={(e) => setName(e.target.value)} />
        <Field
          label={t("organizations.create.slug")}
          name="slug"
          required
          value={effectiveSlug}
          onChange={(e) => {
            setSlugEdited(true);
            setSlug(e.target.value);
          }}
          error={slugTaken}
          hint={slugHint && <span aria-live="polite">{slugHint}</span>}
        />
        <SubmitButton pending={create.isPending} pendingText={t("organizations.create.creating")}>
          {t("organizations.create.submit")}
        </SubmitButton>
      </form>
    </section>
  );
}

function ActiveOrganization({ organization, outcome }: { organization: FullOrganization; outcome: Outcome }) {
  const t = useT();
  const session = useSession();
  const access = organization.access ?? NO_ACCESS;
  const me = organization.members.find((m) => m.userId === session.data?.user.id);
  const logo = safeImage(organization.logo);
  const leave = async () => {
    await api.organization.leave(organization.id);
    outcome.done({ message: t("organizations.leave.done", { organization: organization.name }) });
    await outcome.changed();
  };
  return (
    <section className="card" aria-labelledby="active-org-title">
      <h2 id="active-org-title">
        {logo && <img className="org-logo" src={logo} alt="" width={32} height={32} />}
        {organization.name}
      </h2>
      {access.role && <p className="muted">{t("organizations.yourRole", { role: roleName(access.role) })}</p>}
      <Members organization={organization} access={access} me={me} outcome={outcome} />
      <Teams organization={organization} access={access} outcome={outcome} />
      {(access.canInvite || access.canCancelInvitations) && <Invitations organization={organization} access={access} outcome={outcome} />}
      {access.roleActions.includes("read") && <Roles organization={organization} access={access} outcome={outcome} />}
      <Domains organization={organization} access={access} outcome={outcome} />
      <ApiKeysSection key={organization.id} organizationId={organization.id} />
      {access.role.split(",").some((one) => one.trim() === access.ownerRole) && <ScimTokens organization={organization} outcome={outcome} />}
      {mayManageProviders(access) && <IdentityProvider organization={organization} access={access} outcome={outcome} />}
      {(access.canUpdateOrganization || access.canDeleteOrganization) && (
        <Settings key={`${organization.name}|${organization.slug}|${organization.logo}`} organization={organization} access={access} outcome={outcome} />
      )}
      <div className="row">
        <ConfirmButton
          title={t("organizations.leave.title", { organization: organization.name })}
          description={t("organizations.leave.description", { organization: organization.name })}
          confirmLabel={t("organizations.leave.confirm")}
          pendingText={t("organizations.leave.pending")}
          onConfirm={leave}
        >
          {t("organizations.leave.button", { organization: organization.name })}
        </ConfirmButton>
      </div>
    </section>
  );
}

function Members({ organization, access, me, outcome }: { organization: FullOrganization; access: OrganizationAccess; me?: Member; outcome: Outcome }) {
  const t = useT();
  return (
    <>
      <h3>{t("organizations.members.title")}</h3>
      <ul className="list" aria-label={t("organizations.members.title")}>
        {organization.members.map((member) => (
          // Keyed by role too: a changed role (here, or by an undo) starts its row's choice afresh.
          <MemberRow key={`${member.id}|${member.role}`} organization={organization} member={member} access={access} self={member.id === me?.id} outcome={outcome} />
        ))}
      </ul>
    </>
  );
}

function MemberRow({
  organization,
  member,
  access,
  self,
  outcome,
}: {
  organization: FullOrganization;
  member: Member;
  access: OrganizationAccess;
  self: boolean;
  outcome: Outcome;
}) {
  const t = useT();
  const selectId = useId();
  const who = nameOf(member);
  const [role, setRole] = useState(member.role);
  const mayChangeRole = !self && access.updatableMemberIds.includes(member.id);
  const mayRemove = !self && access.removableMemberIds.includes(member.id);
  // The roles one may give, and the member's own (it may be one the reader cannot give, or several).
  const roles = [...new Set([member.role, ...access.assignableRoles])];
  const toOwner = role !== member.role && role.split(",").includes(access.ownerRole);
  const changeRole = async () => {
    const previous = member.role;
    await api.organization.updateMemberRole(member.id, role, organization.id);
    outcome.done({
      message: t("organizations.members.roleChanged", { who, role: roleName(role) }),
      undo: {
        label: t("organizations.undo"),
        run: () => api.organization.updateMemberRole(member.id, previous, organization.id).then(outcome.changed),
        undoneMessage: t("organizations.members.roleRestored", { who, role: roleName(previous) }),
      },
    });
    await outcome.changed();
  };
  // Members join by invitation only: a removal is taken back by inviting them again with their role.
  const email = member.user?.email;
  const mayInviteBack = access.canInvite && access.assignableRoles.includes(member.role);
  const remove = async () => {
    await api.organization.removeMember(member.id, organization.id);
    outcome.done({
      message: t("organizations.members.removed", { who, organization: organization.name }),
      undo:
        email && mayInviteBack
          ? {
              label: t("organizations.members.inviteBack"),
              run: () => api.organization.invite({ email, role: member.role, organizationId: organization.id }).then(outcome.changed),
              undoneMessage: t("organizations.members.invitedBack", { email }),
            }
          : undefined,
    });
    await outcome.changed();
  };
  return (
    <li>
      <span>
        <strong>{who}</strong>
        {self && <span className="badge">{t("organizations.members.you")}</span>}
      </span>
      {mayChangeRole || mayRemove ? (
        <div className="row">
          {mayChangeRole ? (
            <>
              <label className="visually-hidden" htmlFor={selectId}>
                {t("organizations.members.roleOf", { who })}
              </label>
              <select id={selectId} value={role} onChange={(e) => setRole(e.target.value)}>
                {roles.map((one) => (
                  <option key={one} value={one}>
                    {roleName(one)}
                  </option>
                ))}
              </select>
              <ConfirmButton
                danger={false}
                disabled={role === member.role}
                title={toOwner ? t("organizations.members.makeOwnerTitle", { who }) : t("organizations.members.changeRoleTitle", { who })}
                description={
                  toOwner
                    ? t("organizations.members.makeOwnerDescription", { who, organization: organization.name })
                    : t("organizations.members.changeRoleDescription", { who, from: roleName(member.role), to: roleName(role) })
                }
                confirmLabel={toOwner ? t("organizations.members.makeOwnerConfirm") : t("organizations.members.changeRoleConfirm")}
                pendingText={t("organizations.members.changingRole")}
                onConfirm={changeRole}
              >
                <span aria-hidden="true">{t("organizations.members.changeRole")}</span>
                <span className="visually-hidden">{t("organizations.members.changeRoleOf", { who })}</span>
              </ConfirmButton>
            </>
          ) : (
            <span className="muted">{roleName(member.role)}</span>
          )}
          {mayRemove && (
            <ConfirmButton
              title={t("organizations.members.removeTitle", { who })}
              description={t("organizations.members.removeDescription", { who, organization: organization.name })}
              confirmLabel={t("organizations.members.removeConfirm")}
              pendingText={t("organizations.members.removing")}
              onConfirm={remove}
            >
              <span aria-hidden="true">{t("organizations.members.remove")}</span>
              <span className="visually-hidden">{t("organizations.members.removeWho", { who })}</span>
            </ConfirmButton>
          )}
        </div>
      ) : (
        <span className="muted">{roleName(member.role)}</span>
      )}
    </li>
  );
}

function Invitations({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: Outcome }) {
  const t = useT();
  const language = useLanguage();
  const roleId = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState(access.assignableRoles.includes("member") ? "member" : (access.assignableRoles.at(-1) ?? ""));
  const invite = useMutation({
    mutationFn: () => api.organization.invite({ email: email.trim(), role, organizationId: organization.id }),
    onSuccess: async () => {
      setEmail("");
      await outcome.changed();
    },
  });
  const resend = useMutation({
    mutationFn: (invitation: Invitation) => api.organization.invite({ email: invitation.email, role: invitation.role, organizationId: organization.id, resend: true }),
    onMutate: outcome.started,
    onSuccess: async (invitation) => {
      outcome.done({ message: t("organizations.invitations.resent", { email: invitation.email }) });
      await outcome.changed();
    },
    onError: outcome.refused,
  });
  const withdraw = async (invitation: Invitation) => {
    await api.organization.cancelInvitation(invitation.id);
    const mayInviteAgain = access.canInvite && access.assignableRoles.includes(invitation.role);
    outcome.done({
      message: t("organizations.invitations.withdrawn", { email: invitation.email }),
      undo: mayInviteAgain
        ? {
            label: t("organizations.undo"),
            run: () => api.organization.invite({ email: invitation.email, role: invitation.role, organizationId: organization.id }).then(outcome.changed),
            undoneMessage: t("organizations.invitations.sentAgain", { email: invitation.email }),
          }
        : undefined,
    });
    await outcome.changed();
  };
  const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium" });
  const pending = organization.invitations.filter((i) => i.status === "pending");
  return (
    <>
      {access.canInvite && (
        <>
          <h3>{t("organizations.invitations.inviteTitle")}</h3>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              invite.mutate();
            }}
            noValidate
          >
            <FormAlert key={invite.submittedAt} message={invite.error ? errorMessage(invite.error) : undefined} />
            {invite.isSuccess && <FormAlert tone="success" message={t("organizations.invitations.sent", { email: invite.data.email })} />}
            <Field label={t("organizations.invitations.email")} name="inviteEmail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <div className="field">
              <label htmlFor={roleId}>{t("organizations.invitations.role")}</label>
              <select id={roleId} value={role} onChange={(e) => setRole(e.target.value)}>
                {access.assignableRoles.map((one) => (
                  <option key={one} value={one}>
                    {roleName(one)}
                  </option>
                ))}
              </select>
            </div>
            <SubmitButton pending={invite.isPending} pendingText={t("organizations.invitations.sending")}>
              {t("organizations.invitations.send")}
            </SubmitButton>
          </form>
        </>
      )}
      <h3>{t("organizations.invitations.pendingTitle")}</h3>
      {pending.length === 0 && <p>{t("organizations.invitations.none")}</p>}
      <ul className="list" aria-label={t("organizations.invitations.pendingTitle")}>
        {pending.map((invitation) => (
          <li key={invitation.id}>
            <span>
              <strong>{invitation.email}</strong>{" "}
              <span className="muted">{t("organizations.invitations.details", { role: roleName(invitation.role), date: dates.format(new Date(invitation.expiresAt)) })}</span>
            </span>
            <div className="row">
              {access.canInvite && access.assignableRoles.includes(invitation.role) && (
                <button type="button" onClick={() => resend.mutate(invitation)} disabled={resend.isPending}>
                  <span aria-hidden="true">{t("organizations.invitations.resend")}</span>
                  <span className="visually-hidden">{t("organizations.invitations.resendTo", { email: invitation.email })}</span>
                </button>
              )}
              {access.canCancelInvitations && (
                <ConfirmButton
                  title={t("organizations.invitations.withdrawTitle", { email: invitation.email })}
                  description={t("organizations.invitations.withdrawDescription", { email: invitation.email })}
                  confirmLabel={t("organizations.invitations.withdrawConfirm")}
                  pendingText={t("organizations.invitations.withdrawing")}
                  onConfirm={() => withdraw(invitation)}
                >
                  <span aria-hidden="true">{t("organizations.invitations.withdraw")}</span>
                  <span className="visually-hidden">{t("organizations.invitations.withdrawTo", { email: invitation.email })}</span>
                </ConfirmButton>
              )}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * SCIM provisioning, for an owner (docs/scim.md): the base URL to paste into the identity provider, a new
 * token shown once with a copy button, the tokens by name and prefix, and their revocation.
 */
function ScimTokens({ organization, outcome }: { organization: FullOrganization; outcome: Outcome }) {
  const t = useT();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [copied, setCopied] = useState(false);
  const queryKey = ["scim-tokens", organization.id];
  const tokens = useQuery({ queryKey, queryFn: () => api.organization.scimTokens(organization.id) });
  const generate = useMutation({
    mutationFn: () => api.organization.generateScimToken(organization.id, name.trim()),
    onMutate: () => setCopied(false),
    onSuccess: async () => {
      setName("");
      await queryClient.invalidateQueries({ queryKey });
    },
  });
  const revoke = async (token: ScimToken) => {
    await api.organization.revokeScimToken(organization.id, token.id);
    outcome.done({ message: t("organizations.scim.revoked", { name: token.name }) });
    await queryClient.invalidateQueries({ queryKey });
  };
  const baseUrl = `${window.location.origin}${apiBasePath()}/scim/v2`;
  const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium" });
  return (
    <>
      <h3>{t("organizations.scim.title")}</h3>
      <p>{t("organizations.scim.intro")}</p>
      <p>
        {t("organizations.scim.baseUrl")}: <code>{baseUrl}</code>
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          generate.mutate();
        }}
        noValidate
      >
        <FormAlert key={generate.submittedAt} message={generate.error ? errorMessage(generate.error) : undefined} />
        <Field label={t("organizations.scim.name")} name="scimTokenName" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <SubmitButton pending={generate.isPending} pendingText={t("organizations.scim.generating")}>
          {t("organizations.scim.generate")}
        </SubmitButton>
      </form>
      {generate.data && (
        <div role="status">
          <p>{t("organizations.scim.shownOnce")}</p>
          <p>
            <code>{generate.data.token}</code>
          </p>
          <button
            type="button"
            onClick={() =>
              void navigator.clipboard.writeText(generate.data.token).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {t("organizations.scim.copy")}
          </button>
          {copied && <p>{t("organizations.scim.copied")}</p>}
        </div>
      )}
      <h4>{t("organizations.scim.tokensTitle")}</h4>
      {tokens.error && <FormAlert message={errorMessage(tokens.error)} />}
      {tokens.data?.length === 0 && <p>{t("organizations.scim.none")}</p>}
      <ul className="list" aria-label={t("organizations.scim.tokensTitle")}>
        {tokens.data?.map((token) => (
          <li key={token.id}>
            <span>
              <strong>{token.name}</strong>{" "}
              <span className="muted">{t("organizations.scim.details", { prefix: token.prefix, date: dates.format(new Date(token.createdAt)) })}</span>
            </span>
            <ConfirmButton
              title={t("organizations.scim.revokeTitle", { name: token.name })}
              description={t("organizations.scim.revokeDescription")}
              confirmLabel={t("organizations.scim.revokeConfirm")}
              pendingText={t("organizations.scim.revoking")}
              onConfirm={() => revoke(token)}
            >
              <span aria-hidden="true">{t("organizations.scim.revoke")}</span>
              <span className="visually-hidden">{t("organizations.scim.revokeToken", { name: token.name })}</span>
            </ConfirmButton>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Name, slug and logo for the roles that may change them, and the deletion for those that may delete. */
function Settings({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: Outcome }) {
  const t = useT();
  const [name, setName] = useState(organization.name);
  const [slug, setSlug] = useState(organization.slug);
  const [logo, setLogo] = useState(organization.logo ?? "");
  const save = useMutation({
    mutationFn: () => api.organization.update(organization.id, { name: name.trim(), slug: slug.trim(), logo: logo.trim() || null }),
    onSuccess: async () => {
      const before = { name: organization.name, slug: organization.slug, logo: organization.logo };
      outcome.done({
        message: t("organizations.settings.saved"),
        undo: {
          label: t("organizations.undo"),
          run: () => api.organization.update(organization.id, before).then(outcome.changed),
          undoneMessage: t("organizations.settings.restored"),
        },
      });
      await outcome.changed();
    },
  });
  // The catalogue's message for a taken slug goes next to the slug field.
  const slugTaken = save.error instanceof ApiError && save.error.code === "ORGANIZATION_ALREADY_EXISTS";
  const remove = async () => {
    await api.organization.delete(organization.id);
    outcome.done({ message: t("organizations.settings.deleted", { organization: organization.name }) });
    await outcome.changed();
  };
  return (
    <section aria-labelledby="org-settings-title">
      <h3 id="org-settings-title">{t("organizations.settings.title")}</h3>
      {access.canUpdateOrganization && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
          noValidate
        >
          <FormAlert key={save.submittedAt} message={save.error && !slugTaken ? errorMessage(save.error) : undefined} />
          <Field label={t("organizations.settings.name")} name="settingsName" required value={name} onChange={(e) => setName(e.target.value)} />
          <Field
            key={`slug-${save.submittedAt}`}
            label={t("organizations.settings.slug")}
            name="settingsSlug"
            required
            value={slug}
            onChange={(e) => setSlug(e.target.value)}
            error={slugTaken ? errorMessage(save.error) : undefined}
          />
          <Field
            label={t("organizations.settings.logo")}
            name="settingsLogo"
            type="url"
            value={logo}
            onChange={(e) => setLogo(e.target.value)}
            hint={t("organizations.settings.logoHint")}
          />
          <SubmitButton pending={save.isPending} pendingText={t("organizations.settings.saving")}>
            {t("organizations.settings.save")}
          </SubmitButton>
        </form>
      )}
      {access.canDeleteOrganization && (
        <div className="row">
          <ConfirmButton
            title={t("organizations.settings.deleteTitle", { organization: organization.name })}
            description={t("organizations.settings.deleteDescription", { organization: organization.name })}
            confirmLabel={t("organizations.settings.deleteConfirm")}
            pendingText={t("organizations.settings.deleting")}
            onConfirm={remove}
            typed={{ label: t("organizations.settings.deleteTyped", { organization: organization.name }), value: organization.name }}
          >
            {t("organizations.settings.delete")}
          </ConfirmButton>
        </div>
      )}
    </section>
  );
}

/** /accept-invitation/{id}: what the mail's link opens (signed in first, then back here). */
export function AcceptInvitation() {
  const t = useT();
  const { id } = useParams({ strict: false }) as { id: string };
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const refusal = useRefusal();
  const invitation = useQuery({ queryKey: ["invitation", id], queryFn: () => api.organization.getInvitation(id), retry: false });
  const accept = useMutation({
    mutationFn: () => api.organization.acceptInvitation(id),
    onMutate: refusal.clear,
    onError: refusal.report,
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      await navigate({ to: "/organizations" });
    },
  });
  const reject = useMutation({ mutationFn: () => api.organization.rejectInvitation(id), onMutate: refusal.clear, onError: refusal.report });
  return (
    <Page title={t("organizations.invitation.title")}>
      {invitation.isPending && <p role="status">{t("organizations.invitation.loading")}</p>}
      {invitation.error && <FormAlert message={errorMessage(invitation.error)} />}
      {invitation.data && !reject.isSuccess && (
        <>
          <p>
            {t("organizations.invitation.text", {
              inviter: invitation.data.inviterEmail,
              organization: invitation.data.organizationName,
              role: roleName(invitation.data.role),
            })}
          </p>
          {refusal.alert}
          <div className="row">
            <button type="button" className="primary" onClick={() => accept.mutate()} disabled={accept.isPending || reject.isPending} aria-busy={accept.isPending || undefined}>
              {accept.isPending ? t("organizations.invitation.joining") : t("organizations.invitation.accept")}
            </button>
            <button type="button" onClick={() => reject.mutate()} disabled={accept.isPending || reject.isPending} aria-busy={reject.isPending || undefined}>
              {reject.isPending ? t("organizations.invitation.declining") : t("organizations.invitation.decline")}
            </button>
          </div>
        </>
      )}
      {reject.isSuccess && <FormAlert tone="success" message={t("organizations.invitation.declined")} />}
      <p>
        <Link to="/">{t("organizations.invitation.back")}</Link>
      </p>
    </Page>
  );
}
