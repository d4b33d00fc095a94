/**
 * Organizations: create one (the slug suggested from the name and checked as one types),
 * switch the active one, its members and their roles, invitations; and the invitation page a recipient
 * opens from the mail (/accept-invitation/{id}).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { ApiError, api, errorMessage, type FullOrganization, type Member } from "../api";
import { Field, FormAlert, Page, SubmitButton } from "../components";
import { sessionQuery, useSession } from "../session";

export const ROLES = ["member", "admin", "owner"] as const;

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

const orgKeys = { list: ["organizations"], full: ["organization", "active"] } as const;

export function Organizations() {
  const queryClient = useQueryClient();
  const organizations = useQuery({ queryKey: orgKeys.list, queryFn: api.organization.list });
  const active = useQuery({ queryKey: orgKeys.full, queryFn: api.organization.getFull });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: orgKeys.list }),
      queryClient.invalidateQueries({ queryKey: ["organization"] }),
      queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
    ]);
  const setActive = useMutation({ mutationFn: (id: string | null) => api.organization.setActive(id), onSuccess: refresh });
  return (
    <Page title="Organizations" narrow={false}>
      <section className="card" aria-labelledby="your-orgs-title">
        <h2 id="your-orgs-title">Your organizations</h2>
        <FormAlert message={organizations.error ? errorMessage(organizations.error) : setActive.error ? errorMessage(setActive.error) : undefined} />
        {organizations.data?.length === 0 && <p>You are not a member of any organization yet.</p>}
        <ul className="list" aria-label="Your organizations">
          {organizations.data?.map((org) => {
            const isActive = active.data?.id === org.id;
            return (
              <li key={org.id}>
                <span>
                  <strong>{org.name}</strong> <span className="muted">({org.slug})</span>
                  {isActive && <span className="badge">Active</span>}
                </span>
                {!isActive && (
                  <button type="button" onClick={() => setActive.mutate(org.id)} disabled={setActive.isPending} aria-label={`Switch to ${org.name}`}>
                    Switch to
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      <CreateOrganization onCreated={refresh} />
      {active.data && <ActiveOrganization organization={active.data} onChange={refresh} />}
    </Page>
  );
}

function CreateOrganization({ onCreated }: { onCreated: () => Promise<unknown> }) {
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
  const slugTaken = availability.error instanceof ApiError ? availability.error.message : undefined;
  const slugHint = !effectiveSlug
    ? "Letters, digits and dashes; suggested from the name."
    : checked !== effectiveSlug || availability.isFetching
      ? "Checking…"
      : slugTaken
        ? undefined
        : availability.isSuccess
          ? `“${effectiveSlug}” is available.`
          : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section className="card" aria-labelledby="create-org-title">
      <h2 id="create-org-title">Create an organization</h2>
      <form onSubmit={submit} noValidate>
        <FormAlert message={create.error ? errorMessage(create.error) : undefined} />
        {create.isSuccess && <FormAlert tone="success" message={`${create.data.name} has been created and is now your active organization.`} />}
        <Field label="Organization name" name="orgName" required value={name} onChange={(e) => setName(e.target.value)} />
        <Field
          label="Slug"
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
        <SubmitButton pending={create.isPending} pendingText="Creating…">
          Create organization
        </SubmitButton>
      </form>
    </section>
  );
}

function ActiveOrganization({ organization, onChange }: { organization: FullOrganization; onChange: () => Promise<unknown> }) {
  const session = useSession();
  const me = organization.members.find((m) => m.userId === session.data?.user.id);
  const canManage = me?.role.split(",").some((r) => r === "owner" || r === "admin") ?? false;
  const leave = useMutation({ mutationFn: () => api.organization.leave(organization.id), onSuccess: onChange });
  return (
    <section className="card" aria-labelledby="active-org-title">
      <h2 id="active-org-title">{organization.name}</h2>
      <Members organization={organization} me={me} canManage={canManage} onChange={onChange} />
      {canManage && <Invitations organization={organization} onChange={onChange} />}
      <FormAlert message={leave.error ? errorMessage(leave.error) : undefined} />
      <div className="row">
        <button type="button" className="danger" onClick={() => leave.mutate()} disabled={leave.isPending} aria-busy={leave.isPending || undefined}>
          {leave.isPending ? "Leaving…" : `Leave ${organization.name}`}
        </button>
      </div>
    </section>
  );
}

function Members({ organization, me, canManage, onChange }: { organization: FullOrganization; me?: Member; canManage: boolean; onChange: () => Promise<unknown> }) {
  const changeRole = useMutation({
    mutationFn: ({ member, role }: { member: Member; role: string }) => api.organization.updateMemberRole(member.id, role, organization.id),
    onSuccess: onChange,
  });
  const remove = useMutation({ mutationFn: (member: Member) => api.organization.removeMember(member.id, organization.id), onSuccess: onChange });
  const failure = changeRole.error ?? remove.error;
  return (
    <>
      <h3>Members</h3>
      <FormAlert message={failure ? errorMessage(failure) : undefined} />
      <ul className="list" aria-label="Members">
        {organization.members.map((member) => {
          const who = member.user ? `${member.user.name} (${member.user.email})` : member.userId;
          const self = member.id === me?.id;
          return (
            <li key={member.id}>
              <span>
                <strong>{who}</strong>
                {self && <span className="badge">You</span>}
              </span>
              {canManage && !self ? (
                <span className="row">
                  <label className="visually-hidden" htmlFor={`role-${member.id}`}>
                    Role of {who}
                  </label>
                  <select id={`role-${member.id}`} value={member.role} disabled={changeRole.isPending} onChange={(e) => changeRole.mutate({ member, role: e.target.value })}>
                    {ROLES.map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                  <button type="button" onClick={() => remove.mutate(member)} disabled={remove.isPending} aria-label={`Remove ${who}`}>
                    Remove
                  </button>
                </span>
              ) : (
                <span className="muted">{member.role}</span>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function Invitations({ organization, onChange }: { organization: FullOrganization; onChange: () => Promise<unknown> }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<string>("member");
  const invite = useMutation({
    mutationFn: (resend: boolean) => api.organization.invite({ email: email.trim(), role, organizationId: organization.id, resend }),
    onSuccess: async () => {
      setEmail("");
      await onChange();
    },
  });
  const resend = useMutation({
    mutationFn: (target: { email: string; role: string }) => api.organization.invite({ ...target, organizationId: organization.id, resend: true }),
    onSuccess: onChange,
  });
  const cancel = useMutation({ mutationFn: (id: string) => api.organization.cancelInvitation(id), onSuccess: onChange });
  const pending = organization.invitations.filter((i) => i.status === "pending");
  const failure = resend.error ?? cancel.error;
  return (
    <>
      <h3>Invite someone</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          invite.mutate(false);
        }}
        noValidate
      >
        <FormAlert message={invite.error ? errorMessage(invite.error) : undefined} />
        {invite.isSuccess && <FormAlert tone="success" message={`Invitation sent to ${invite.data.email}.`} />}
        <Field label="Email address to invite" name="inviteEmail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <SubmitButton pending={invite.isPending} pendingText="Sending…">
          Send invitation
        </SubmitButton>
      </form>
      <h3>Pending invitations</h3>
      <FormAlert message={failure ? errorMessage(failure) : undefined} />
      {resend.isSuccess && <FormAlert tone="success" message={`Invitation sent again to ${resend.data.email}.`} />}
      {pending.length === 0 && <p>No pending invitations.</p>}
      <ul className="list" aria-label="Pending invitations">
        {pending.map((invitation) => (
          <li key={invitation.id}>
            <span>
              <strong>{invitation.email}</strong>{" "}
              <span className="muted">
                as {invitation.role} · expires {new Date(invitation.expiresAt).toLocaleDateString()}
              </span>
            </span>
            <span className="row">
              <button
                type="button"
                onClick={() => resend.mutate({ email: invitation.email, role: invitation.role })}
                disabled={resend.isPending}
                aria-label={`Resend the invitation to ${invitation.email}`}
              >
                Resend
              </button>
              <button type="button" onClick={() => cancel.mutate(invitation.id)} disabled={cancel.isPending} aria-label={`Cancel the invitation to ${invitation.email}`}>
                Cancel
              </button>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** /accept-invitation/{id}: what the mail's link opens (signed in first, then back here). */
export function AcceptInvitation() {
  const { id } = useParams({ strict: false }) as { id: string };
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const invitation = useQuery({ queryKey: ["invitation", id], queryFn: () => api.organization.getInvitation(id), retry: false });
  const accept = useMutation({
    mutationFn: () => api.organization.acceptInvitation(id),
    onSuccess: async () => {
      await queryClient.invalidateQueries();
      await navigate({ to: "/organizations" });
    },
  });
  const reject = useMutation({ mutationFn: () => api.organization.rejectInvitation(id) });
  const failure = accept.error ?? reject.error;
  return (
    <Page title="Invitation">
      {invitation.isPending && <p role="status">Loading the invitation…</p>}
      {invitation.error && <FormAlert message={errorMessage(invitation.error)} />}
      {invitation.data && !reject.isSuccess && (
        <>
          <p>
            <strong>{invitation.data.inviterEmail}</strong> invited you to join <strong>{invitation.data.organizationName}</strong> as {invitation.data.role}.
          </p>
          <FormAlert message={failure ? errorMessage(failure) : undefined} />
          <div className="row">
            <button type="button" className="primary" onClick={() => accept.mutate()} disabled={accept.isPending || reject.isPending} aria-busy={accept.isPending || undefined}>
              {accept.isPending ? "Joining…" : "Accept"}
            </button>
            <button type="button" onClick={() => reject.mutate()} disabled={accept.isPending || reject.isPending} aria-busy={reject.isPending || undefined}>
              {reject.isPending ? "Declining…" : "Decline"}
            </button>
          </div>
        </>
      )}
      {reject.isSuccess && <FormAlert tone="success" message="You declined the invitation." />}
      <p>
        <Link to="/">Back to the application</Link>
      </p>
    </Page>
  );
}
