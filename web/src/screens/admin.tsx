/**
 * The admin area (for users whose role is an admin role): the users table (search by field and operator, one
 * filter, sorting, paging, each user's last sign-in) with a form that creates a user, a user's page
 * (sessions, role, ban and unban, password, impersonation, removal: each asks first, says what it did and
 * offers the platform's inverse where there is one) and the audit log, with names and emails beside the ids.
 * The admin service decides who is an admin; the route guard asks it (has-permission) before any of these
 * screens shows.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useRouterState } from "@tanstack/react-router";
import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { WEBHOOK_EVENT_TYPES } from "@auth-platform/contract/webhook-events";
import { type AuditPage, type AuditQuery, api, errorMessage, type User, type UserListQuery, type WebhookDelivery, type WebhookEndpoint } from "../api";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { type MessageKey, useLanguage, useT } from "../i18n";
import { startOver } from "../impersonation";
import { describeUserAgent as deviceName } from "../user-agent";

declare module "@tanstack/history" {
  interface HistoryState {
    /** What the users page says after a user's page removed that user. */
    removedUser?: string;
  }
}

export const PAGE_SIZE = 20;

const SEARCH_FIELDS = [
  ["email", "admin.users.fields.email"],
  ["name", "admin.users.fields.name"],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;
const SEARCH_OPERATORS = [
  ["contains", "admin.users.operators.contains"],
  ["starts_with", "admin.users.operators.startsWith"],
  ["ends_with", "admin.users.operators.endsWith"],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;
/** The one filter list-users takes, as choices a person understands. */
export const USER_FILTERS: Record<string, { label: MessageKey; query: Pick<UserListQuery, "filterField" | "filterValue" | "filterOperator"> }> = {
  all: { label: "admin.users.filters.all", query: {} },
  banned: { label: "admin.users.filters.banned", query: { filterField: "banned", filterValue: "true", filterOperator: "eq" } },
  active: { label: "admin.users.filters.active", query: { filterField: "banned", filterValue: "false", filterOperator: "eq" } },
  // contains: a role may be a list ("user,admin", as the bootstrap command promotes), which eq would miss;
  // it also shows a role such as "superadmin", whose name the table's role column shows beside it.
  admins: { label: "admin.users.filters.admins", query: { filterField: "role", filterValue: "admin", filterOperator: "contains" } },
  unverified: { label: "admin.users.filters.unverified", query: { filterField: "emailVerified", filterValue: "false", filterOperator: "eq" } },
};
const SORTABLE = [
  ["name", "admin.users.columns.name"],
  ["email", "admin.users.columns.email"],
  ["createdAt", "admin.users.columns.created"],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;

/** Ban durations offered (seconds; none = until unbanned). */
export const BAN_DURATIONS = [
  ["", "admin.ban.durations.forever"],
  ["3600", "admin.ban.durations.hour"],
  ["86400", "admin.ban.durations.day"],
  ["604800", "admin.ban.durations.week"],
  ["2592000", "admin.ban.durations.month"],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;

/** Dates, times and counts in the reader's language. */
function useFormats() {
  const language = useLanguage();
  return {
    date: (iso: string) => new Date(iso).toLocaleDateString(language),
    dateTime: (iso: string) => new Date(iso).toLocaleString(language, { dateStyle: "medium", timeStyle: "short" }),
    count: (n: number) => n.toLocaleString(language),
  };
}

/** The name a screen calls a user by. */
const nameOf = (user: Pick<User, "name" | "email">) => user.name || user.email;

/** The roles admins may give (the admin service's configuration), read once per visit of the area. */
const useRoles = () => useQuery({ queryKey: ["admin", "roles"], queryFn: api.admin.listRoles, staleTime: Number.POSITIVE_INFINITY });

function AdminNav() {
  const t = useT();
  return (
    <nav aria-label={t("admin.nav.label")} className="row">
      <Link to="/admin" activeOptions={{ exact: true }}>
        {t("admin.nav.users")}
      </Link>
      <Link to="/admin/audit">{t("admin.nav.audit")}</Link>
      <Link to="/admin/webhooks">{t("admin.nav.webhooks")}</Link>
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
  const t = useT();
  const { count } = useFormats();
  // Past a lower-bound total, a full page means there may be more.
  const more = atLeast ? shown === PAGE_SIZE : offset + shown < total;
  // "2 to 20 of 45"; "of 10,000+" when the total is only a lower bound (a count limit).
  const range = { from: count(offset + 1), to: count(offset + shown), total: count(total) };
  return (
    <nav aria-label={label} className="row pager">
      <span role="status">{total === 0 && shown === 0 ? t("admin.pager.none") : t(atLeast ? "admin.pager.rangeAtLeast" : "admin.pager.range", range)}</span>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - PAGE_SIZE))}>
        {t("admin.pager.previous")}
      </button>
      <button type="button" disabled={!more} onClick={() => onPage(offset + PAGE_SIZE)}>
        {t("admin.pager.next")}
      </button>
    </nav>
  );
}

/** A labelled select, with its error below it as Field has. */
function SelectField({
  label,
  name,
  value,
  onChange,
  options,
  error,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  options: ReadonlyArray<readonly [value: string, label: string]>;
  error?: string;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      >
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </select>
      {error && (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function AdminUsers() {
  const t = useT();
  const { date, dateTime } = useFormats();
  const [searchField, setSearchField] = useState<"email" | "name">("email");
  const [searchOperator, setSearchOperator] = useState<"contains" | "starts_with" | "ends_with">("contains");
  const [searchValue, setSearchValue] = useState("");
  const [filter, setFilter] = useState("all");
  const [sort, setSort] = useState<{ by: string; direction: "asc" | "desc" }>({ by: "createdAt", direction: "desc" });
  const [offset, setOffset] = useState(0);
  // The search runs on submit (Enter or the button), not on every key.
  const [submitted, setSubmitted] = useState({ searchField, searchOperator, searchValue: "" });
  const removedUser = useRouterState({ select: (state) => state.location.state.removedUser });
  const [removalSeen, setRemovalSeen] = useState<string>();
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
    <Page title={t("admin.users.title")} narrow={false}>
      <AdminNav />
      <DoneNotice done={removedUser && removedUser !== removalSeen ? { message: removedUser } : undefined} onClear={() => setRemovalSeen(removedUser)} />
      <section className="card" aria-labelledby="user-search-title">
        <h2 id="user-search-title">{t("admin.users.findTitle")}</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the landmark every browser maps; <search> is recent. */}
        <form className="inline-form" role="search" onSubmit={search}>
          <SelectField
            label={t("admin.users.searchIn")}
            name="searchField"
            value={searchField}
            onChange={(value) => setSearchField(value as typeof searchField)}
            options={SEARCH_FIELDS.map(([value, label]) => [value, t(label)])}
          />
          <SelectField
            label={t("admin.users.match")}
            name="searchOperator"
            value={searchOperator}
            onChange={(value) => setSearchOperator(value as typeof searchOperator)}
            options={SEARCH_OPERATORS.map(([value, label]) => [value, t(label)])}
          />
          <Field label={t("admin.users.search")} name="search" type="search" value={searchValue} onChange={(e) => setSearchValue(e.target.value)} />
          <SelectField
            label={t("admin.users.show")}
            name="filter"
            value={filter}
            onChange={(value) => {
              setOffset(0);
              setFilter(value);
            }}
            options={Object.entries(USER_FILTERS).map(([value, { label }]) => [value, t(label)])}
          />
          <SubmitButton pending={users.isFetching && submitted.searchValue !== ""} pendingText={t("admin.users.searching")} className="primary">
            {t("admin.users.search")}
          </SubmitButton>
        </form>
      </section>
      <FormAlert message={users.error ? errorMessage(users.error) : undefined} />
      <div className="table-wrap">
        <table aria-label={t("admin.users.tableLabel")} aria-busy={users.isFetching || undefined}>
          <thead>
            <tr>
              {SORTABLE.map(([field, label]) => (
                <th key={field} scope="col" aria-sort={sort.by === field ? (sort.direction === "asc" ? "ascending" : "descending") : "none"}>
                  <button type="button" className="link" onClick={() => sortBy(field)}>
                    {t(label)}
                    {sort.by === field && <span aria-hidden="true">{sort.direction === "asc" ? " ▲" : " ▼"}</span>}
                  </button>
                </th>
              ))}
              <th scope="col">{t("admin.users.columns.lastSignIn")}</th>
              <th scope="col">{t("admin.users.columns.role")}</th>
              <th scope="col">{t("admin.users.columns.status")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((user) => (
              <tr key={user.id}>
                <td>
                  <Link to="/admin/users/$id" params={{ id: user.id }}>
                    {user.name || t("admin.noName")}
                  </Link>
                </td>
                <td>{user.email}</td>
                <td>{date(user.createdAt)}</td>
                <td>{user.lastSignInAt ? <time dateTime={user.lastSignInAt}>{dateTime(user.lastSignInAt)}</time> : t("admin.never")}</td>
                <td>{user.role ?? "—"}</td>
                <td>{user.banned ? t("admin.users.banned") : t("admin.users.active")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.data && (
        <Pager
          label={t("admin.users.pagesLabel")}
          offset={offset}
          shown={rows.length}
          total={users.data.total}
          atLeast={users.data.totalIsLowerBound === true}
          onPage={setOffset}
        />
      )}
      <CreateUser />
    </Page>
  );
}

const NO_USER = { name: "", email: "", password: "", role: "" };
const CREATE_FIELDS = ["name", "email", "password", "role"];

/** Creates a user: no password leaves the user without one (ADR 0041), no role takes the platform's default. */
function CreateUser() {
  const t = useT();
  const queryClient = useQueryClient();
  const roles = useRoles();
  const form = useRef<HTMLFormElement>(null);
  const [fields, setFields] = useState(NO_USER);
  const [done, setDone] = useState<Done>();
  const set = (name: keyof typeof NO_USER) => (value: string) => setFields((current) => ({ ...current, [name]: value }));
  const refreshList = () => queryClient.invalidateQueries({ queryKey: ["admin", "users"] });
  const create = useMutation({
    mutationFn: () =>
      api.admin.createUser({
        name: fields.name.trim(),
        email: fields.email.trim(),
        // Left out, not empty: an empty password is refused as too short (ADR 0041).
        ...(fields.password ? { password: fields.password } : {}),
        ...(fields.role ? { role: fields.role } : {}),
      }),
    onMutate: () => setDone(undefined),
    onSuccess: async ({ user }) => {
      setFields(NO_USER);
      setDone({
        message: t("admin.create.done", { name: user.name, email: user.email }),
        undo: {
          label: t("admin.undo"),
          run: async () => {
            await api.admin.removeUser(user.id);
            await refreshList();
          },
          undoneMessage: t("admin.create.undone", { email: user.email }),
        },
      });
      await refreshList();
    },
    onError: (error) => {
      // The field a refusal names takes the focus; any other refusal is the form's alert, which takes it.
      const { field } = placeError(error, CREATE_FIELDS);
      if (field) form.current?.querySelector<HTMLElement>(`[name="${field}"]`)?.focus();
    },
  });
  const refusal = create.error ? placeError(create.error, CREATE_FIELDS) : undefined;
  const fieldError = (name: string) => (refusal?.field === name ? refusal.message : undefined);
  return (
    <Section id="create-user-title" title={t("admin.create.title")}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      <form
        ref={form}
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <FormAlert message={refusal && !refusal.field ? refusal.message : undefined} />
        <Field label={t("admin.create.name")} name="name" value={fields.name} onChange={(e) => set("name")(e.target.value)} error={fieldError("name")} required />
        <Field
          label={t("admin.create.email")}
          name="email"
          type="email"
          autoComplete="off"
          value={fields.email}
          onChange={(e) => set("email")(e.target.value)}
          error={fieldError("email")}
          required
        />
        <Field
          label={t("admin.create.password")}
          name="password"
          type="password"
          autoComplete="new-password"
          value={fields.password}
          onChange={(e) => set("password")(e.target.value)}
          error={fieldError("password")}
          hint={t("admin.create.passwordHint")}
        />
        <SelectField
          label={t("admin.create.role")}
          name="role"
          value={fields.role}
          onChange={set("role")}
          options={[["", t("admin.create.defaultRole")], ...(roles.data ?? []).map((role) => [role, role] as const)]}
          error={fieldError("role")}
        />
        <SubmitButton pending={create.isPending} pendingText={t("admin.create.pending")}>
          {t("admin.create.submit")}
        </SubmitButton>
      </form>
    </Section>
  );
}

export function AdminUser() {
  const t = useT();
  const { id } = useParams({ strict: false }) as { id: string };
  const user = useQuery({ queryKey: ["admin", "user", id], queryFn: () => api.admin.getUser(id), retry: false });
  return (
    <Page title={user.data ? t("admin.user.title", { name: nameOf(user.data) }) : t("admin.user.untitled")} narrow={false}>
      <AdminNav />
      {user.isPending && <p role="status">{t("admin.user.loading")}</p>}
      <FormAlert message={user.error ? errorMessage(user.error) : undefined} />
      {user.data && <UserDetail user={user.data} />}
    </Page>
  );
}

function UserDetail({ user }: { user: User }) {
  const t = useT();
  const { dateTime } = useFormats();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["admin"] });
  const reason = user.banReason ?? t("admin.profile.noReason");
  return (
    <>
      <Section id="user-profile-title" title={t("admin.profile.title")}>
        <dl className="facts">
          <dt>{t("admin.profile.email")}</dt>
          <dd>
            {user.email} {user.emailVerified ? <span className="badge">{t("admin.profile.verified")}</span> : <span className="muted">{t("admin.profile.notVerified")}</span>}
          </dd>
          <dt>{t("admin.profile.userId")}</dt>
          <dd>
            <code>{user.id}</code>
          </dd>
          <dt>{t("admin.profile.created")}</dt>
          <dd>{dateTime(user.createdAt)}</dd>
          <dt>{t("admin.profile.status")}</dt>
          <dd>
            {!user.banned
              ? t("admin.profile.active")
              : user.banExpires
                ? t("admin.profile.bannedUntil", { reason, date: dateTime(user.banExpires) })
                : t("admin.profile.banned", { reason })}
          </dd>
        </dl>
        <Impersonate user={user} />
      </Section>
      <UserSessions user={user} onChange={refresh} />
      <RoleSection user={user} onChange={refresh} />
      <BanSection user={user} onChange={refresh} />
      <PasswordSection user={user} />
      <RemoveUser user={user} />
    </>
  );
}

/** Impersonation asks first; the banner it leads to says so on every page and is the way back. */
function Impersonate({ user }: { user: User }) {
  const t = useT();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const name = nameOf(user);
  return (
    <div className="row">
      <ConfirmButton
        danger={false}
        title={t("admin.impersonate.title", { name })}
        description={t("admin.impersonate.description", { name, email: user.email })}
        confirmLabel={t("admin.impersonate.confirm")}
        pendingText={t("admin.impersonate.pending")}
        onConfirm={async () => {
          await api.admin.impersonateUser(user.id);
          await startOver(queryClient);
          await navigate({ to: "/account" });
        }}
      >
        {t("admin.impersonate.button", { name })}
      </ConfirmButton>
    </div>
  );
}

function UserSessions({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const t = useT();
  const { dateTime } = useFormats();
  const sessions = useQuery({ queryKey: ["admin", "sessions", user.id], queryFn: () => api.admin.listUserSessions(user.id) });
  const [done, setDone] = useState<Done>();
  const list = sessions.data?.sessions ?? [];
  const name = nameOf(user);
  return (
    <Section id="user-sessions-title" title={t("admin.sessions.title")}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      <FormAlert message={sessions.error ? errorMessage(sessions.error) : undefined} />
      {sessions.isSuccess && list.length === 0 && <p>{t("admin.sessions.none")}</p>}
      <ul className="list" aria-label={t("admin.sessions.listLabel")}>
        {list.map((session) => {
          const device = deviceName(session.userAgent);
          const address = session.ipAddress ?? t("admin.sessions.unknownAddress");
          return (
            <li key={session.id}>
              <span>
                <strong>{device}</strong>
                {session.impersonatedBy && <span className="badge">{t("admin.sessions.impersonation")}</span>}
                <br />
                <span className="muted">{t("admin.sessions.details", { address, date: dateTime(session.updatedAt) })}</span>
              </span>
              <ConfirmButton
                title={t("admin.sessions.revokeTitle")}
                description={t("admin.sessions.revokeDescription", { device, address })}
                confirmLabel={t("admin.sessions.revokeConfirm")}
                pendingText={t("admin.sessions.revoking")}
                onConfirm={async () => {
                  await api.admin.revokeUserSession(session.token);
                  setDone({ message: t("admin.sessions.revoked", { device }) });
                  await onChange();
                }}
              >
                {t("admin.sessions.revoke")}
                <span className="visually-hidden">{t("admin.sessions.revokeHidden", { device, address, date: dateTime(session.createdAt) })}</span>
              </ConfirmButton>
            </li>
          );
        })}
      </ul>
      <ConfirmButton
        disabled={list.length === 0}
        title={t("admin.sessions.revokeAllTitle", { name })}
        description={t("admin.sessions.revokeAllDescription", { name })}
        confirmLabel={t("admin.sessions.revokeAllConfirm")}
        pendingText={t("admin.sessions.revoking")}
        onConfirm={async () => {
          await api.admin.revokeUserSessions(user.id);
          setDone({ message: t("admin.sessions.revokedAll", { name }) });
          await onChange();
        }}
      >
        {t("admin.sessions.revokeAll")}
      </ConfirmButton>
    </Section>
  );
}

/** The role, chosen among those admins may give; the user's own, when it is not one of them, stays offered. */
function RoleSection({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const t = useT();
  const roles = useRoles();
  const current = user.role ?? "";
  const [role, setRole] = useState(current);
  const [done, setDone] = useState<Done>();
  const configured = roles.data ?? [];
  const choices = current && !configured.includes(current) ? [current, ...configured] : configured;
  const name = nameOf(user);
  const change = async () => {
    const before = current;
    const { user: changed } = await api.admin.setRole(user.id, role);
    setDone({
      message: t("admin.role.done", { role: changed.role ?? role }),
      // A user with no role cannot be given none again: set-role takes a role.
      undo: before
        ? {
            label: t("admin.undo"),
            run: async () => {
              await api.admin.setRole(user.id, before);
              setRole(before);
              await onChange();
            },
            undoneMessage: t("admin.role.undone", { role: before }),
          }
        : undefined,
    });
    await onChange();
  };
  return (
    <Section id="user-role-title" title={t("admin.role.title")}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      <div className="inline-form">
        <SelectField
          label={t("admin.role.label")}
          name="role"
          value={role}
          onChange={setRole}
          options={[...(current ? [] : [["", t("admin.role.none")] as const]), ...choices.map((r) => [r, r === current ? t("admin.role.current", { role: r }) : r] as const)]}
        />
        <ConfirmButton
          danger={false}
          disabled={!role || role === current}
          title={t("admin.role.dialogTitle", { name })}
          description={t("admin.role.description", { name, from: current || t("admin.role.none"), to: role })}
          confirmLabel={t("admin.role.submit")}
          pendingText={t("admin.role.pending")}
          onConfirm={change}
        >
          {t("admin.role.submit")}
        </ConfirmButton>
      </div>
    </Section>
  );
}

/** The same ban again (reason and the time it had left), or none when it has ended by now. */
function banAgain(user: User): { banReason?: string; banExpiresIn?: number } | undefined {
  const reason = user.banReason ? { banReason: user.banReason } : {};
  if (!user.banExpires) return reason;
  const left = Math.ceil((Date.parse(user.banExpires) - Date.now()) / 1000);
  return left > 0 ? { ...reason, banExpiresIn: left } : undefined;
}

function BanSection({ user, onChange }: { user: User; onChange: () => Promise<unknown> }) {
  const t = useT();
  const [reason, setReason] = useState("");
  const [duration, setDuration] = useState("");
  const [done, setDone] = useState<Done>();
  const name = nameOf(user);
  const durationLabel = BAN_DURATIONS.find(([value]) => value === duration)?.[1] ?? "admin.ban.durations.forever";
  const ban = async () => {
    await api.admin.banUser({ userId: user.id, ...(reason.trim() ? { banReason: reason.trim() } : {}), ...(duration ? { banExpiresIn: Number(duration) } : {}) });
    setReason("");
    setDone({
      message: t("admin.ban.done", { name }),
      undo: {
        label: t("admin.undo"),
        run: async () => {
          await api.admin.unbanUser(user.id);
          await onChange();
        },
        undoneMessage: t("admin.ban.undone", { name }),
      },
    });
    await onChange();
  };
  const unban = async () => {
    const again = banAgain(user);
    await api.admin.unbanUser(user.id);
    setDone({
      message: t("admin.unban.done", { name }),
      undo: again && {
        label: t("admin.undo"),
        run: async () => {
          await api.admin.banUser({ userId: user.id, ...again });
          await onChange();
        },
        undoneMessage: t("admin.unban.undone", { name }),
      },
    });
    await onChange();
  };
  return (
    <Section id="user-ban-title" title={t("admin.ban.title")}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {user.banned ? (
        <>
          <p>{t("admin.ban.isBanned")}</p>
          <ConfirmButton
            danger={false}
            title={t("admin.unban.dialogTitle", { name })}
            description={t("admin.unban.description", { name })}
            confirmLabel={t("admin.unban.confirm")}
            pendingText={t("admin.unban.pending")}
            onConfirm={unban}
          >
            {t("admin.unban.button")}
          </ConfirmButton>
        </>
      ) : (
        <>
          <p className="muted">{t("admin.ban.explain")}</p>
          <div className="inline-form">
            <Field label={t("admin.ban.reason")} name="banReason" value={reason} onChange={(e) => setReason(e.target.value)} />
            <SelectField
              label={t("admin.ban.duration")}
              name="banDuration"
              value={duration}
              onChange={setDuration}
              options={BAN_DURATIONS.map(([value, label]) => [value, t(label)])}
            />
            <ConfirmButton
              title={t("admin.ban.dialogTitle", { name })}
              description={duration ? t("admin.ban.descriptionFor", { name, duration: t(durationLabel) }) : t("admin.ban.descriptionForever", { name })}
              confirmLabel={t("admin.ban.confirm")}
              pendingText={t("admin.ban.pending")}
              onConfirm={ban}
            >
              {t("admin.ban.button")}
            </ConfirmButton>
          </div>
        </>
      )}
    </Section>
  );
}

/** A new password replaces the old one for good: no undo. */
function PasswordSection({ user }: { user: User }) {
  const t = useT();
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<Done>();
  return (
    <Section id="user-password-title" title={t("admin.password.title")}>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      <div className="inline-form">
        <Field label={t("admin.password.label")} name="newPassword" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        <ConfirmButton
          disabled={!password}
          title={t("admin.password.dialogTitle", { name: nameOf(user) })}
          description={t("admin.password.description")}
          confirmLabel={t("admin.password.submit")}
          pendingText={t("admin.password.pending")}
          onConfirm={async () => {
            await api.admin.setUserPassword(user.id, password);
            setPassword("");
            setDone({ message: t("admin.password.done") });
          }}
        >
          {t("admin.password.submit")}
        </ConfirmButton>
      </div>
    </Section>
  );
}

/** Removal cannot be undone: it asks first, then the users page says it happened. */
function RemoveUser({ user }: { user: User }) {
  const t = useT();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const name = nameOf(user);
  return (
    <Section id="user-remove-title" title={t("admin.remove.title")}>
      <p>{t("admin.remove.explain")}</p>
      <ConfirmButton
        title={t("admin.remove.dialogTitle", { name })}
        description={t("admin.remove.description", { name, email: user.email })}
        confirmLabel={t("admin.remove.button")}
        pendingText={t("admin.remove.pending")}
        onConfirm={async () => {
          await api.admin.removeUser(user.id);
          await navigate({ to: "/admin", state: (previous) => ({ ...previous, removedUser: t("admin.users.removed", { name, email: user.email }) }) });
          await queryClient.invalidateQueries({ queryKey: ["admin"] });
        }}
      >
        {t("admin.remove.button")}
      </ConfirmButton>
    </Section>
  );
}

export function AuditLog() {
  const t = useT();
  const { dateTime } = useFormats();
  const [draft, setDraft] = useState({ action: "", actorId: "", targetId: "" });
  const [filters, setFilters] = useState(draft);
  const [offset, setOffset] = useState(0);
  const query: AuditQuery = { ...filters, limit: PAGE_SIZE, offset };
  const events = useQuery({ queryKey: ["admin", "audit", query], queryFn: () => api.admin.listAuditEvents(query), placeholderData: keepPreviousData });
  const rows = events.data?.events ?? [];
  const users = events.data?.users ?? {};
  const columns = {
    when: t("admin.audit.columns.when"),
    action: t("admin.audit.columns.action"),
    outcome: t("admin.audit.columns.outcome"),
    actor: t("admin.audit.columns.actor"),
    target: t("admin.audit.columns.target"),
    address: t("admin.audit.columns.address"),
  };
  return (
    <Page title={t("admin.audit.title")} narrow={false}>
      <AdminNav />
      <section className="card" aria-labelledby="audit-filter-title">
        <h2 id="audit-filter-title">{t("admin.audit.filterTitle")}</h2>
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setOffset(0);
            setFilters({ action: draft.action.trim(), actorId: draft.actorId.trim(), targetId: draft.targetId.trim() });
          }}
        >
          <Field label={t("admin.audit.action")} name="action" placeholder="user.ban" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} />
          <Field label={t("admin.audit.actorId")} name="actorId" value={draft.actorId} onChange={(e) => setDraft({ ...draft, actorId: e.target.value })} />
          <Field label={t("admin.audit.targetId")} name="targetId" value={draft.targetId} onChange={(e) => setDraft({ ...draft, targetId: e.target.value })} />
          <SubmitButton pending={events.isFetching} pendingText={t("admin.audit.filtering")} className="primary">
            {t("admin.audit.filter")}
          </SubmitButton>
        </form>
      </section>
      <FormAlert message={events.error ? errorMessage(events.error) : undefined} />
      <div className="table-wrap">
        <table className="audit" aria-label={t("admin.audit.tableLabel")} aria-busy={events.isFetching || undefined}>
          <thead>
            <tr>
              <th scope="col" className="audit-when">
                {columns.when}
              </th>
              <th scope="col" className="audit-action">
                {columns.action}
              </th>
              <th scope="col" className="audit-outcome">
                {columns.outcome}
              </th>
              <th scope="col">{columns.actor}</th>
              <th scope="col">{columns.target}</th>
              <th scope="col" className="audit-address">
                {columns.address}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td data-label={columns.when}>
                  <time dateTime={event.at}>{dateTime(event.at)}</time>
                </td>
                <td data-label={columns.action}>
                  <code>{event.action}</code>
                </td>
                <td data-label={columns.outcome}>
                  {event.outcome === "success" ? t("admin.audit.success") : t("admin.audit.failure")}
                  {typeof event.details.error === "string" && (
                    <>
                      {" "}
                      <code>{event.details.error}</code>
                    </>
                  )}
                </td>
                <td data-label={columns.actor}>
                  {event.actorId ? <Person id={event.actorId} users={users} /> : "—"}
                  {event.impersonatorId && (
                    <span className="muted">
                      {t("admin.audit.impersonatedBy")} <Person id={event.impersonatorId} users={users} />
                    </span>
                  )}
                </td>
                <td data-label={columns.target}>{event.targetId ? <Person id={event.targetId} users={users} /> : "—"}</td>
                <td data-label={columns.address}>{event.ipAddress ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {events.data && <Pager label={t("admin.audit.pagesLabel")} offset={offset} shown={rows.length} total={events.data.total} onPage={setOffset} />}
    </Page>
  );
}

/** A user the log names: name (to their page) and email as identity knows them now, and the id the log keeps. */
function Person({ id, users }: { id: string; users: AuditPage["users"] }) {
  const t = useT();
  const known = Object.hasOwn(users, id) ? users[id] : undefined;
  return (
    <span className="person">
      {known ? (
        <>
          <Link to="/admin/users/$id" params={{ id }}>
            {known.name || t("admin.noName")}
          </Link>
          <span>{known.email}</span>
        </>
      ) : (
        <span className="muted">{t("admin.audit.gone")}</span>
      )}
      <code>{id}</code>
    </span>
  );
}

/** Checkboxes of the event types; `selected` is the checked ones. */
function EventTypes({ selected, onChange }: { selected: string[]; onChange: (types: string[]) => void }) {
  const t = useT();
  return (
    <fieldset className="field">
      <legend>{t("admin.webhooks.events")}</legend>
      {WEBHOOK_EVENT_TYPES.map((type) => (
        <label key={type} className="row">
          <input
            type="checkbox"
            name="eventTypes"
            value={type}
            checked={selected.includes(type)}
            onChange={(e) => onChange(e.target.checked ? [...selected, type] : selected.filter((other) => other !== type))}
          />
          <code>{type}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** A signing secret, shown once (after create or rotate), with a button that copies it. */
function SecretOnce({ secret }: { secret: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" aria-label={t("admin.webhooks.secretTitle")}>
      <p>{t("admin.webhooks.secretExplain")}</p>
      <code data-testid="webhook-secret">{secret}</code>{" "}
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(secret).catch(() => undefined);
          setCopied(true);
        }}
      >
        {copied ? t("admin.webhooks.copied") : t("admin.webhooks.copy")}
      </button>
    </div>
  );
}

/**
 * Webhooks: register an endpoint (its secret shown once), and per endpoint edit, enable or disable, send a
 * test event, take a new secret, delete, and read the delivery log with a resend for each delivery.
 */
export function AdminWebhooks() {
  const t = useT();
  const queryClient = useQueryClient();
  const endpoints = useQuery({ queryKey: ["admin", "webhooks"], queryFn: api.admin.webhooks.list });
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState<string[]>(["user.created"]);
  const [secret, setSecret] = useState<string>();
  const create = useMutation({
    mutationFn: () => api.admin.webhooks.create({ url: url.trim(), eventTypes: types, description: description.trim() }),
    onMutate: () => setSecret(undefined),
    onSuccess: async (answer) => {
      setSecret(answer.secret);
      setUrl("");
      setDescription("");
      await queryClient.invalidateQueries({ queryKey: ["admin", "webhooks"] });
    },
  });
  const refusal = create.error ? placeError(create.error, ["url", "eventTypes"]) : undefined;
  return (
    <Page title={t("admin.webhooks.title")} narrow={false}>
      <AdminNav />
      <Section id="webhook-create-title" title={t("admin.webhooks.createTitle")}>
        {secret && <SecretOnce secret={secret} />}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate();
          }}
        >
          <FormAlert message={refusal && !refusal.field ? refusal.message : undefined} cause={create.error} />
          <Field
            label={t("admin.webhooks.url")}
            name="url"
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            hint={t("admin.webhooks.urlHint")}
            error={refusal?.field === "url" ? refusal.message : undefined}
            required
          />
          <EventTypes selected={types} onChange={setTypes} />
          <Field label={t("admin.webhooks.description")} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />
          <SubmitButton pending={create.isPending} pendingText={t("admin.webhooks.pending")}>
            {t("admin.webhooks.submit")}
          </SubmitButton>
        </form>
      </Section>
      <Section id="webhook-list-title" title={t("admin.webhooks.listTitle")}>
        {endpoints.error && <FormAlert message={errorMessage(endpoints.error)} />}
        {endpoints.data?.length === 0 && <p className="muted">{t("admin.webhooks.none")}</p>}
        {endpoints.data?.map((endpoint) => (
          <EndpointCard key={endpoint.id} endpoint={endpoint} />
        ))}
      </Section>
    </Page>
  );
}

function EndpointCard({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(endpoint.url);
  const [types, setTypes] = useState(endpoint.eventTypes);
  const [secret, setSecret] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["admin", "webhooks"] });
  const change = useMutation({
    mutationFn: (patch: { url?: string; eventTypes?: string[]; enabled?: boolean }) => api.admin.webhooks.update({ id: endpoint.id, ...patch }),
    onSuccess: async () => {
      setEditing(false);
      await refresh();
    },
  });
  const act = useMutation({
    mutationFn: async (what: "rotate" | "test") => {
      if (what === "rotate") setSecret((await api.admin.webhooks.rotateSecret(endpoint.id)).secret);
      else {
        await api.admin.webhooks.sendTest(endpoint.id);
        setNotice(t("admin.webhooks.testSent"));
      }
    },
    onMutate: () => setNotice(undefined),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin", "webhook-deliveries", endpoint.id] }),
  });
  const error = change.error ?? act.error;
  return (
    <article aria-labelledby={`webhook-${endpoint.id}`} className="card">
      <h3 id={`webhook-${endpoint.id}`}>{endpoint.url}</h3>
      <p>
        {endpoint.enabled ? t("admin.webhooks.enabled") : t("admin.webhooks.disabled")} · {endpoint.eventTypes.join(", ")}
        {endpoint.description && ` · ${endpoint.description}`}
      </p>
      {error && <FormAlert message={errorMessage(error)} cause={error} />}
      {notice && <FormAlert message={notice} tone="success" />}
      {secret && <SecretOnce secret={secret} />}
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            change.mutate({ url: url.trim(), eventTypes: types });
          }}
        >
          <Field label={t("admin.webhooks.url")} name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
          <EventTypes selected={types} onChange={setTypes} />
          <div className="row">
            <SubmitButton pending={change.isPending} pendingText={t("admin.webhooks.saving")}>
              {t("admin.webhooks.save")}
            </SubmitButton>
            <button type="button" onClick={() => setEditing(false)}>
              {t("admin.webhooks.cancel")}
            </button>
          </div>
        </form>
      ) : (
        <div className="row">
          <button type="button" onClick={() => setEditing(true)}>
            {t("admin.webhooks.edit")}
          </button>
          <button type="button" disabled={change.isPending} onClick={() => change.mutate({ enabled: !endpoint.enabled })}>
            {endpoint.enabled ? t("admin.webhooks.disable") : t("admin.webhooks.enable")}
          </button>
          <button type="button" disabled={act.isPending} onClick={() => act.mutate("test")}>
            {t("admin.webhooks.sendTest")}
          </button>
          <button type="button" disabled={act.isPending} onClick={() => act.mutate("rotate")}>
            {t("admin.webhooks.rotate")}
          </button>
          <ConfirmButton
            title={t("admin.webhooks.removeTitle", { url: endpoint.url })}
            description={t("admin.webhooks.removeDescription")}
            confirmLabel={t("admin.webhooks.remove")}
            pendingText={t("admin.webhooks.removing")}
            onConfirm={async () => {
              await api.admin.webhooks.remove(endpoint.id);
              await refresh();
            }}
          >
            {t("admin.webhooks.remove")}
          </ConfirmButton>
        </div>
      )}
      <DeliveryLog endpoint={endpoint} />
    </article>
  );
}

/** An endpoint's delivery log, newest first, refreshed while a delivery is pending; a resend per delivery. */
function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useT();
  const { dateTime } = useFormats();
  const queryClient = useQueryClient();
  const key = ["admin", "webhook-deliveries", endpoint.id];
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () => api.admin.webhooks.deliveries(endpoint.id),
    refetchInterval: (query) => (query.state.data?.some((d: WebhookDelivery) => d.status === "pending") ? 2_000 : 10_000),
  });
  const resend = useMutation({ mutationFn: (id: string) => api.admin.webhooks.resend(id), onSuccess: () => queryClient.invalidateQueries({ queryKey: key }) });
  const rows = deliveries.data ?? [];
  return (
    <>
      <h4>{t("admin.webhooks.logTitle")}</h4>
      {resend.error && <FormAlert message={errorMessage(resend.error)} cause={resend.error} />}
      {rows.length === 0 ? (
        <p className="muted">{t("admin.webhooks.noDeliveries")}</p>
      ) : (
        <table aria-label={t("admin.webhooks.logLabel", { url: endpoint.url })}>
          <thead>
            <tr>
              <th scope="col">{t("admin.webhooks.columns.event")}</th>
              <th scope="col">{t("admin.webhooks.columns.status")}</th>
              <th scope="col">{t("admin.webhooks.columns.code")}</th>
              <th scope="col">{t("admin.webhooks.columns.attempts")}</th>
              <th scope="col">{t("admin.webhooks.columns.time")}</th>
              <th scope="col">{t("admin.webhooks.columns.actions")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <code>{delivery.eventType}</code>
                </td>
                <td title={delivery.lastError ?? undefined}>{t(`admin.webhooks.statuses.${delivery.status}`)}</td>
                <td>{delivery.lastResponseCode ?? t("admin.webhooks.noResponse")}</td>
                <td>{delivery.attempts}</td>
                <td>{dateTime(delivery.deliveredAt ?? delivery.createdAt)}</td>
                <td>
                  {delivery.status !== "pending" && (
                    <button type="button" disabled={resend.isPending} onClick={() => resend.mutate(delivery.id)}>
                      {t("admin.webhooks.resend")}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
