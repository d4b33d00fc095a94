/**
 * The admin area (for users whose role is an admin role): the users table (search by field
 * and operator, one filter, sorting, paging), a user's page (sessions, role, ban and unban, password,
 * impersonation, removal behind a typed confirmation) and the audit log. The admin service decides who is an
 * admin; the route guard asks it (has-permission) before any of these screens shows.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { type FormEvent, type ReactNode, useState } from "react";
import { api, type AuditQuery, errorMessage, type User, type UserListQuery } from "../api";
import { Field, FormAlert, Page, SubmitButton } from "../components";
import { startOver } from "../impersonation";
import { describeUserAgent as deviceName } from "../user-agent";

export const PAGE_SIZE = 20;

const SEARCH_FIELDS = [
  ["email", "Email"],
  ["name", "Name"],
] as const;
const SEARCH_OPERATORS = [
  ["contains", "contains"],
  ["starts_with", "starts with"],
  ["ends_with", "ends with"],
] as const;
/** The one filter list-users takes, as choices a person understands. */
export const USER_FILTERS: Record<string, { label: string; query: Pick<UserListQuery, "filterField" | "filterValue" | "filterOperator"> }> = {
  all: { label: "All users", query: {} },
  banned: { label: "Banned", query: { filterField: "banned", filterValue: "true", filterOperator: "eq" } },
  active: { label: "Not banned", query: { filterField: "banned", filterValue: "false", filterOperator: "eq" } },
  // contains: a role may be a list ("user,admin", as the bootstrap command promotes), which eq would miss;
  // it also shows a role such as "superadmin", whose name the table's role column shows beside it.
  admins: { label: "Role contains admin", query: { filterField: "role", filterValue: "admin", filterOperator: "contains" } },
  unverified: { label: "Email not verified", query: { filterField: "emailVerified", filterValue: "false", filterOperator: "eq" } },
};
const SORTABLE = [
  ["name", "Name"],
  ["email", "Email"],
  ["createdAt", "Created"],
] as const;

/** "2 to 20 of 45" for a page of a list; "of 10,000+" when the total is only a lower bound (a count limit). */
const range = (offset: number, shown: number, total: number, atLeast: boolean) =>
  total === 0 && shown === 0 ? "No results" : `${offset + 1} to ${offset + shown} of ${total.toLocaleString("en")}${atLeast ? "+" : ""}`;

function AdminNav() {
  return (
    <nav aria-label="Admin" className="row">
      <Link to="/admin" activeOptions={{ exact: true }}>
        Users
      </Link>
      <Link to="/admin/audit">Audit log</Link>
    </nav>
  );
}

function Pager({
  offset,
  shown,
  total,
  atLeast = false,
  onPage,
  label,
}: {
  offset: number;
  shown: number;
  total: number;
  atLeast?: boolean;
  onPage: (offset: number) => void;
  label: string;
}) {
  // Past a lower-bound total, a full page means there may be more.
  const more = atLeast ? shown === PAGE_SIZE : offset + shown < total;
  return (
    <nav aria-label={label} className="row pager">
      <span role="status">{range(offset, shown, total, atLeast)}</span>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - PAGE_SIZE))}>
        Previous page
      </button>
      <button type="button" disabled={!more} onClick={() => onPage(offset + PAGE_SIZE)}>
        Next page
      </button>
    </nav>
  );
}

export function AdminUsers() {
  const [searchField, setSearchField] = useState<"email" | "name">("email");
  const [searchOperator, setSearchOperator] = useState<"contains" | "starts_with" | "ends_with">("contains");
  const [searchValue, setSearchValue] = useState("");
  const [filter, setFilter] = useState("all");
  const [sort, setSort] = useState<{ by: string; direction: "asc" | "desc" }>({ by: "createdAt", direction: "desc" });
  const [offset, setOffset] = useState(0);
  // The search runs on submit (Enter or the button), not on every key.
  const [submitted, setSubmitted] = useState({ searchField, searchOperator, searchValue: "" });
  const query: UserListQuery = {
    ...(submitted.searchValue ? submitted : {}),
    ...USER_FILTERS[filter]!.query,
    sortBy: sort.by,
    sortDirection: sort.direction,
    limit: PAGE_SIZE,
    offset,
  };
  const users = useQuery({ queryKey: ["admin", "users", query], queryFn: () => api.admin.listUsers(query), placeholderData: keepPreviousData });
  const search = (event: FormEvent) => {
    event.preventDefault();
    setOffset(0);
    setSubmitted({ searchField, searchOperator, searchValue: searchValue.trim() });
  };
  const sortBy = (by: string) => {
    setOffset(0);
    setSort((current) => ({ by, direction: current.by === by && current.direction === "asc" ? "desc" : "asc" }));
  };
  const rows = users.data?.users ?? [];
  return (
    <Page title="Users" narrow={false}>
      <AdminNav />
      <section className="card" aria-labelledby="user-search-title">
        <h2 id="user-search-title">Find users</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the landmark every browser maps; <search> is recent. */}
        <form className="inline-form" role="search" onSubmit={search}>
          <div className="field">
            <label htmlFor="search-field">Search in</label>
            <select id="search-field" value={searchField} onChange={(e) => setSearchField(e.target.value as typeof searchField)}>
              {SEARCH_FIELDS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="search-operator">Match</label>
            <select id="search-operator" value={searchOperator} onChange={(e) => setSearchOperator(e.target.value as typeof searchOperator)}>
              {SEARCH_OPERATORS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <Field label="Search" name="search" type="search" value={searchValue} onChange={(e) => setSearchValue(e.target.value)} />
          <div className="field">
            <label htmlFor="user-filter">Show</label>
            <select
              id="user-filter"
              value={filter}
              onChange={(e) => {
                setOffset(0);
                setFilter(e.target.value);
              }}
            >
              {Object.entries(USER_FILTERS).map(([value, { label }]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <SubmitButton pending={users.isFetching && submitted.searchValue !== ""} pendingText="Searching…" className="primary">
            Search
          </SubmitButton>
        </form>
      </section>
      <FormAlert message={users.error ? errorMessage(users.error) : undefined} />
      <div className="table-wrap">
        <table aria-label="Users" aria-busy={users.isFetching || undefined}>
          <thead>
            <tr>
              {SORTABLE.map(([field, label]) => (
                <th key={field} scope="col" aria-sort={sort.by === field ? (sort.direction === "asc" ? "ascending" : "descending") : "none"}>
                  <button type="button" className="link" onClick={() => sortBy(field)}>
                    {label}
                    {sort.by === field && <span aria-hidden="true">{sort.direction === "asc" ? " ▲" : " ▼"}</span>}
                  </button>
                </th>
              ))}
              <th scope="col">Role</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((user) => (
              <tr key={user.id}>
                <td>
                  <Link to="/admin/users/$id" params={{ id: user.id }}>
                    {user.name || "(no name)"}
                  </Link>
                </td>
                <td>{user.email}</td>
                <td>{new Date(user.createdAt).toLocaleDateString()}</td>
                <td>{user.role ?? "—"}</td>
                <td>{user.banned ? "Banned" : "Active"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.data && <Pager label="Users pages" offset={offset} shown={rows.length} total={users.data.total} atLeast={users.data.totalIsLowerBound === true} onPage={setOffset} />}
    </Page>
  );
}

/** Ban durations offered (seconds; none = until unbanned). */
export const BAN_DURATIONS = [
  ["", "Until unbanned"],
  ["3600", "1 hour"],
  ["86400", "1 day"],
  ["604800", "7 days"],
  ["2592000", "30 days"],
] as const;

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function AdminUser() {
  const { id } = useParams({ strict: false }) as { id: string };
  const user = useQuery({ queryKey: ["admin", "user", id], queryFn: () => api.admin.getUser(id), retry: false });
  return (
    <Page title={user.data ? `User: ${user.data.name || user.data.email}` : "User"} narrow={false}>
      <AdminNav />
      {user.isPending && <p role="status">Loading the user…</p>}
      <FormAlert message={user.error ? errorMessage(user.error) : undefined} />
      {user.data && <UserDetail user={user.data} />}
    </Page>
  );
}

function UserDetail({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["admin"] });
  return (
    <>
      <Section id="user-profile-title" title="Profile">
        <dl className="facts">
          <dt>Email</dt>
          <dd>
            {user.email} {user.emailVerified ? <span className="badge">Verified</span> : <span className="muted">(not verified)</span>}
          </dd>
          <dt>User id</dt>
          <dd>
            <code>{user.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{new Date(user.createdAt).toLocaleString()}</dd>
          <dt>Status</dt>
          <dd>{user.banned ? `Banned: ${user.banReason ?? "No reason"}${user.banExpires ? ` (until ${new Date(user.banExpires).toLocaleString()})` : ""}` : "Active"}</dd>
        </dl>
        <Impersonate user={user} />
      </Section>
      <UserSessions user={user} onChange={refresh} />
      <RoleForm user={user} onChange={refresh} />
      <BanForm user={user} onChange={refresh} />
      <PasswordForm user={user} />
      <RemoveUser user={user} />
    </>
  );
}

function Impersonate({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const impersonate = useMutation({
    mutationFn: () => api.admin.impersonateUser(user.id),
    onSuccess: async () => {
      await startOver(queryClient);
      await navigate({ to: "/account" });
    },
  });
  return (
    <>
      <FormAlert message={impersonate.error ? errorMessage(impersonate.error) : undefined} />
      <div className="row">
        <button type="button" onClick={() => impersonate.mutate()} disabled={impersonate.isPending} aria-busy={impersonate.isPending || undefined}>
          {impersonate.isPending ? "Starting…" : `Impersonate ${user.name || user.email}`}
        </button>
      </div>
    </>
  );
}

function UserSessions({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const sessions = useQuery({ queryKey: ["admin", "sessions", user.id], queryFn: () => api.admin.listUserSessions(user.id) });
  const revoke = useMutation({ mutationFn: (token: string) => api.admin.revokeUserSession(token), onSuccess: onChange });
  const revokeAll = useMutation({ mutationFn: () => api.admin.revokeUserSessions(user.id), onSuccess: onChange });
  const list = sessions.data?.sessions ?? [];
  const failure = sessions.error ?? revoke.error ?? revokeAll.error;
  return (
    <Section id="user-sessions-title" title="Sessions">
      <FormAlert message={failure ? errorMessage(failure) : undefined} />
      {sessions.isSuccess && list.length === 0 && <p>No active sessions.</p>}
      <ul className="list" aria-label="Sessions">
        {list.map((session) => (
          <li key={session.id}>
            <span>
              <strong>{deviceName(session.userAgent)}</strong>
              {session.impersonatedBy && <span className="badge">Impersonation</span>}
              <br />
              <span className="muted">
                {session.ipAddress ?? "unknown address"} · last active {new Date(session.updatedAt).toLocaleString()}
              </span>
            </span>
            <button
              type="button"
              onClick={() => revoke.mutate(session.token)}
              disabled={revoke.isPending}
              aria-label={`Revoke the session on ${deviceName(session.userAgent)} (${session.ipAddress ?? "unknown address"}, started ${new Date(session.createdAt).toLocaleString()})`}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="danger" onClick={() => revokeAll.mutate()} disabled={revokeAll.isPending || list.length === 0} aria-busy={revokeAll.isPending || undefined}>
        {revokeAll.isPending ? "Revoking…" : "Revoke all sessions"}
      </button>
    </Section>
  );
}

function RoleForm({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const [role, setRole] = useState(user.role ?? "user");
  const setRoleMutation = useMutation({ mutationFn: () => api.admin.setRole(user.id, role.trim()), onSuccess: onChange });
  return (
    <Section id="user-role-title" title="Role">
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setRoleMutation.mutate();
        }}
      >
        <FormAlert message={setRoleMutation.error ? errorMessage(setRoleMutation.error) : undefined} />
        {setRoleMutation.isSuccess && <FormAlert tone="success" message={`The role is now ${setRoleMutation.data.user.role}.`} />}
        <Field label="Role (comma-separated for several)" name="role" value={role} onChange={(e) => setRole(e.target.value)} required />
        <SubmitButton pending={setRoleMutation.isPending} pendingText="Saving…">
          Set role
        </SubmitButton>
      </form>
    </Section>
  );
}

function BanForm({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const [reason, setReason] = useState("");
  const [duration, setDuration] = useState("");
  const ban = useMutation({
    mutationFn: () => api.admin.banUser({ userId: user.id, ...(reason.trim() ? { banReason: reason.trim() } : {}), ...(duration ? { banExpiresIn: Number(duration) } : {}) }),
    onSuccess: async () => {
      setReason("");
      await onChange();
    },
  });
  const unban = useMutation({ mutationFn: () => api.admin.unbanUser(user.id), onSuccess: onChange });
  return (
    <Section id="user-ban-title" title="Ban">
      {user.banned ? (
        <>
          <FormAlert message={unban.error ? errorMessage(unban.error) : undefined} />
          <p>This user is banned and cannot sign in.</p>
          <button type="button" onClick={() => unban.mutate()} disabled={unban.isPending} aria-busy={unban.isPending || undefined}>
            {unban.isPending ? "Unbanning…" : "Unban"}
          </button>
        </>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            ban.mutate();
          }}
        >
          <FormAlert message={ban.error ? errorMessage(ban.error) : undefined} />
          {unban.isSuccess && <FormAlert tone="success" message="The ban has been lifted." />}
          <p className="muted">A ban ends every session of the user at once and refuses their sign-ins.</p>
          <Field label="Reason (optional)" name="banReason" value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="field">
            <label htmlFor="ban-duration">Duration</label>
            <select id="ban-duration" value={duration} onChange={(e) => setDuration(e.target.value)}>
              {BAN_DURATIONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <SubmitButton pending={ban.isPending} pendingText="Banning…" className="danger">
            Ban user
          </SubmitButton>
        </form>
      )}
    </Section>
  );
}

function PasswordForm({ user }: { user: User }) {
  const [password, setPassword] = useState("");
  const change = useMutation({ mutationFn: () => api.admin.setUserPassword(user.id, password), onSuccess: () => setPassword("") });
  return (
    <Section id="user-password-title" title="Password">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          change.mutate();
        }}
      >
        <FormAlert message={change.error ? errorMessage(change.error) : undefined} />
        {change.isSuccess && <FormAlert tone="success" message="The password has been set." />}
        <Field
          label="New password for this user"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <SubmitButton pending={change.isPending} pendingText="Saving…">
          Set password
        </SubmitButton>
      </form>
    </Section>
  );
}

function RemoveUser({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [typed, setTyped] = useState("");
  const remove = useMutation({
    mutationFn: () => api.admin.removeUser(user.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ["admin"] });
      await navigate({ to: "/admin" });
    },
  });
  const confirmed = typed.trim().toLowerCase() === user.email.toLowerCase();
  return (
    <Section id="user-remove-title" title="Remove user">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (confirmed) remove.mutate();
        }}
      >
        <FormAlert message={remove.error ? errorMessage(remove.error) : undefined} />
        <p>This deletes the user, their sessions, linked accounts and memberships. It cannot be undone.</p>
        <Field label={`Type ${user.email} to confirm`} name="confirmEmail" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
        <button type="submit" className="danger" disabled={!confirmed || remove.isPending} aria-busy={remove.isPending || undefined}>
          {remove.isPending ? "Removing…" : "Remove user"}
        </button>
      </form>
    </Section>
  );
}

export function AuditLog() {
  const [draft, setDraft] = useState({ action: "", actorId: "", targetId: "" });
  const [filters, setFilters] = useState(draft);
  const [offset, setOffset] = useState(0);
  const query: AuditQuery = { ...filters, limit: PAGE_SIZE, offset };
  const events = useQuery({ queryKey: ["admin", "audit", query], queryFn: () => api.admin.listAuditEvents(query), placeholderData: keepPreviousData });
  const rows = events.data?.events ?? [];
  return (
    <Page title="Audit log" narrow={false}>
      <AdminNav />
      <section className="card" aria-labelledby="audit-filter-title">
        <h2 id="audit-filter-title">Filter events</h2>
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setOffset(0);
            setFilters({ action: draft.action.trim(), actorId: draft.actorId.trim(), targetId: draft.targetId.trim() });
          }}
        >
          <Field label="Action" name="action" placeholder="user.ban" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} />
          <Field label="Actor id" name="actorId" value={draft.actorId} onChange={(e) => setDraft({ ...draft, actorId: e.target.value })} />
          <Field label="Target id" name="targetId" value={draft.targetId} onChange={(e) => setDraft({ ...draft, targetId: e.target.value })} />
          <SubmitButton pending={events.isFetching} pendingText="Filtering…" className="primary">
            Filter
          </SubmitButton>
        </form>
      </section>
      <FormAlert message={events.error ? errorMessage(events.error) : undefined} />
      <div className="table-wrap">
        <table aria-label="Audit events" aria-busy={events.isFetching || undefined}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Outcome</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Address</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td>{new Date(event.at).toLocaleString()}</td>
                <td>
                  <code>{event.action}</code>
                </td>
                <td>{event.outcome}</td>
                <td>
                  {event.actorId ? <UserLink id={event.actorId} /> : "—"}
                  {event.impersonatorId && (
                    <>
                      {" "}
                      <span className="muted">
                        (impersonated by <UserLink id={event.impersonatorId} />)
                      </span>
                    </>
                  )}
                </td>
                <td>{event.targetId ? <UserLink id={event.targetId} /> : "—"}</td>
                <td>{event.ipAddress ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.data && <Pager label="Audit log pages" offset={offset} shown={rows.length} total={events.data.total} onPage={setOffset} />}
    </Page>
  );
}

function UserLink({ id }: { id: string }) {
  return (
    <Link to="/admin/users/$id" params={{ id }}>
      <code>{id}</code>
    </Link>
  );
}
