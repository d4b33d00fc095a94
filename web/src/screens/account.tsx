import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type ChangeEvent, type FormEvent, type ReactNode, useState } from "react";
import { ApiError, api, errorMessage, type LinkedAccount, type Session, type SessionWithUser } from "../api";
import { AvatarError, avatarDataUrl, shownImage } from "../avatar";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { useLanguage, useT } from "../i18n";
import { LanguagePicker } from "../i18n/language-picker";
import { passwordAcceptable } from "../password-rules";
import { noteSignedOutEverywhere, sessionQuery, useSession } from "../session";
import { linkProvider, SocialButtons, useProviderName, useSocialProviders } from "../social";
import { describeSignInMethod } from "../sign-in-method";
import { describeUserAgent } from "../user-agent";
import { type LocalRefusal, PasswordRules } from "./sign-up";
import { ApiKeysSection } from "./api-keys";
import { PasskeysSection, passkeysQuery } from "./passkeys";
import { TwoFactorSection } from "./two-factor";
import { EMAIL_CHANGE_CALLBACK } from "./verify-email";

/** The accounts query the account page's sections share (sign-in methods, whether there is a password). */
const accountsQuery = { queryKey: ["accounts"], queryFn: api.listAccounts };

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function Account() {
  const t = useT();
  const session = useSession();
  const accounts = useQuery(accountsQuery);
  // Whether the person has a password (a credential account); undefined until the list comes.
  const hasPassword = accounts.data?.some((account) => account.providerId === "credential");
  if (!session.data) return null;
  return (
    <Page title={t("account.title")} narrow={false}>
      <Profile current={session.data} />
      <ChangeEmail current={session.data} />
      <PasswordSection current={session.data} />
      {/* Only where the platform has the two-factor API (its user JSON then carries twoFactorEnabled). */}
      {"twoFactorEnabled" in session.data.user && <TwoFactorSection current={session.data} hasPassword={hasPassword} />}
      <PasskeysSection />
      <ApiKeysSection />
      <LinkedAccounts />
      <ActiveSessions current={session.data} />
      <Section id="language-title" title={t("account.languageTitle")}>
        <LanguagePicker />
      </Section>
      <DeleteAccount hasPassword={hasPassword} />
    </Page>
  );
}

function Profile({ current }: { current: SessionWithUser }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [name, setName] = useState(current.user.name);
  const [image, setImage] = useState<string | null>(shownImage(current.user.image));
  const [imageError, setImageError] = useState<string>();
  const save = useMutation({
    mutationFn: () => api.updateUser({ name: name.trim(), image }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    try {
      setImage(await avatarDataUrl(file));
      setImageError(undefined);
    } catch (error) {
      setImageError(error instanceof AvatarError ? error.message : t("account.imageUnreadable"));
      event.target.value = "";
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const { email, emailVerified, username, displayUsername } = current.user;
  return (
    <Section id="profile-title" title={t("account.profileTitle")}>
      <form onSubmit={submit} noValidate>
        <FormAlert message={save.error ? errorMessage(save.error) : undefined} cause={save.error} />
        {save.isSuccess && <FormAlert tone="success" message={t("account.profileSaved")} />}
        <div className="avatar-row">
          {image ? (
            <img className="avatar" src={image} alt={t("account.pictureAlt")} width={64} height={64} />
          ) : (
            <div className="avatar placeholder" aria-hidden="true">
              {current.user.name.slice(0, 1).toUpperCase()}
            </div>
          )}
          <div>
            <Field label={t("account.picture")} name="image" type="file" accept="image/*" onChange={choose} error={imageError} />
            {image && (
              <button type="button" className="link" onClick={() => setImage(null)}>
                {t("account.removePicture")}
              </button>
            )}
          </div>
        </div>
        <Field label={t("account.name")} name="name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
        <p className="muted">
          {emailVerified ? t("account.emailVerified", { email }) : t("account.emailUnverified", { email })}
          {username ? ` · ${t("account.username", { username: displayUsername ?? username })}` : ""}
        </p>
        <SubmitButton pending={save.isPending} pendingText={t("account.saving")}>
          {t("account.saveProfile")}
        </SubmitButton>
      </form>
      {!emailVerified && <ResendVerification email={email} />}
    </Section>
  );
}

function ResendVerification({ email }: { email: string }) {
  const t = useT();
  const send = useMutation({ mutationFn: () => api.sendVerificationEmail({ email, callbackURL: "/verify-email" }) });
  return (
    <div className="row">
      <FormAlert message={send.error ? errorMessage(send.error) : undefined} cause={send.error} />
      {send.isSuccess ? (
        <FormAlert tone="success" message={t("account.verificationSent", { email })} />
      ) : (
        <button type="button" onClick={() => send.mutate()} disabled={send.isPending} aria-busy={send.isPending || undefined}>
          {send.isPending ? t("account.sending") : t("account.resendVerification")}
        </button>
      )}
    </div>
  );
}

/**
 * A verified user's change goes in two steps, each a mailed link landing on the verify-email screen (which
 * knows it is a change by its callback): the current address approves, then the new one is verified. An
 * unverified user's address changes at once.
 */
function ChangeEmail({ current }: { current: SessionWithUser }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [newEmail, setNewEmail] = useState("");
  const { email, emailVerified } = current.user;
  const change = useMutation({
    mutationFn: () => api.changeEmail({ newEmail: newEmail.trim(), callbackURL: EMAIL_CHANGE_CALLBACK }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  const placed = change.error ? placeError(change.error, ["newEmail"], { email: "newEmail" }) : undefined;
  // Read after the answer: a verified user's address stays until approved, an unverified one's has moved.
  const done = emailVerified ? t("account.approvalSent", { email }) : t("account.emailChanged", { email });
  return (
    <Section id="email-title" title={t("account.emailTitle")}>
      <p>{emailVerified ? t("account.changeEmailSteps", { email }) : t("account.changeEmailAtOnce")}</p>
      <form onSubmit={submit} noValidate>
        <FormAlert message={placed && !placed.field ? placed.message : undefined} cause={change.error} />
        {change.isSuccess && <FormAlert tone="success" message={done} />}
        <Field
          label={t("account.newEmail")}
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          error={placed?.field ? placed.message : undefined}
        />
        <SubmitButton pending={change.isPending} pendingText={t("account.changing")}>
          {t("account.changeEmail")}
        </SubmitButton>
      </form>
    </Section>
  );
}

/** Change the password, or, for someone who has none (signs in by mail or through a provider), set a first one. */
function PasswordSection({ current }: { current: SessionWithUser }) {
  const t = useT();
  const accounts = useQuery(accountsQuery);
  return (
    <Section id="password-title" title={t("account.passwordTitle")}>
      <FormAlert message={accounts.error ? errorMessage(accounts.error) : undefined} cause={accounts.error} />
      {accounts.isPending && <p role="status">{t("account.loading")}</p>}
      {accounts.data && (accounts.data.some((account) => account.providerId === "credential") ? <ChangePassword /> : <SetPassword current={current} />)}
    </Section>
  );
}

/**
 * A first password, set at once from a fresh session (POST /set-password, docs/http-api/account.md); from a
 * stale one, the app mails a password-reset link to the person's own verified address instead, and the reset
 * creates the credential account.
 */
function SetPassword({ current }: { current: SessionWithUser }) {
  const t = useT();
  const queryClient = useQueryClient();
  const { email, emailVerified } = current.user;
  const [password, setPassword] = useState("");
  const [localError, setLocalError] = useState<LocalRefusal>();
  const set = useMutation({
    mutationFn: () => api.setPassword({ newPassword: password }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsQuery.queryKey }),
  });
  const send = useMutation({ mutationFn: () => api.forgetPassword({ email, redirectTo: "/reset-password" }) });
  if (send.isSuccess) return <FormAlert tone="success" message={t("account.setPasswordSent", { email })} />;
  if (set.error instanceof ApiError && set.error.code === "SESSION_IS_NOT_FRESH") {
    if (!emailVerified) return <p>{t("account.noPasswordVerifyFirst")}</p>;
    return (
      <>
        <p>{t("account.setPasswordStale")}</p>
        <FormAlert message={send.error ? errorMessage(send.error) : undefined} cause={send.error} />
        <button type="button" onClick={() => send.mutate()} disabled={send.isPending} aria-busy={send.isPending || undefined}>
          {send.isPending ? t("account.sending") : t("account.sendSetPasswordLink")}
        </button>
      </>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(password)) return setLocalError({ message: t("account.meetRules") });
    setLocalError(undefined);
    set.mutate();
  };
  const placed = set.error ? placeError(set.error, ["newPassword"]) : undefined;
  return (
    <form onSubmit={submit} noValidate>
      <p>{t("account.noPassword")}</p>
      <FormAlert message={localError?.message ?? (placed && !placed.field ? placed.message : undefined)} cause={localError ?? set.error} />
      <Field
        label={t("account.newPassword")}
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={placed?.field ? placed.message : undefined}
        hint={<PasswordRules password={password} />}
      />
      <SubmitButton pending={set.isPending} pendingText={t("account.changing")}>
        {t("account.setPassword")}
      </SubmitButton>
    </form>
  );
}

function ChangePassword() {
  const t = useT();
  const queryClient = useQueryClient();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [revokeOthers, setRevokeOthers] = useState(true);
  const [localError, setLocalError] = useState<LocalRefusal>();
  const change = useMutation({
    mutationFn: () => api.changePassword({ currentPassword, newPassword, revokeOtherSessions: revokeOthers }),
    onSuccess: () => {
      setCurrentPassword("");
      setNewPassword("");
      return queryClient.invalidateQueries();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(newPassword)) return setLocalError({ message: t("account.meetRules") });
    setLocalError(undefined);
    change.mutate();
  };
  const placed = change.error ? placeError(change.error, ["currentPassword", "newPassword"], { password: "newPassword" }) : undefined;
  return (
    <form onSubmit={submit} noValidate>
      <FormAlert message={localError?.message ?? (placed && !placed.field ? placed.message : undefined)} cause={localError ?? change.error} />
      {change.isSuccess && <FormAlert tone="success" message={t("account.passwordChanged")} />}
      <Field
        label={t("account.currentPassword")}
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        value={currentPassword}
        onChange={(e) => setCurrentPassword(e.target.value)}
        error={placed?.field === "currentPassword" ? placed.message : undefined}
      />
      <Field
        label={t("account.newPassword")}
        name="newPassword"
        type="password"
        autoComplete="new-password"
        required
        value={newPassword}
        onChange={(e) => setNewPassword(e.target.value)}
        error={placed?.field === "newPassword" ? placed.message : undefined}
        hint={<PasswordRules password={newPassword} />}
      />
      <div className="check">
        <input id="revoke-others" type="checkbox" checked={revokeOthers} onChange={(e) => setRevokeOthers(e.target.checked)} />
        <label htmlFor="revoke-others">{t("account.signOutOthersToo")}</label>
      </div>
      <SubmitButton pending={change.isPending} pendingText={t("account.changing")}>
        {t("account.changePassword")}
      </SubmitButton>
    </form>
  );
}

/**
 * The sign-in methods. Unlinking asks first; a provider unlinked can be linked again at once (the undo runs
 * the provider's link flow); the password cannot come back that way (a reset mails a new one).
 */
function LinkedAccounts() {
  const t = useT();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const accounts = useQuery(accountsQuery);
  const nameOf = useProviderName();
  const [done, setDone] = useState<Done>();
  const unlink = async (account: LinkedAccount) => {
    await api.unlinkAccount(account);
    const name = nameOf(account.providerId);
    setDone({
      message: t("account.unlinked", { provider: name }),
      ...(account.providerId === "credential"
        ? {}
        : {
            undo: {
              label: t("account.linkAgain", { provider: name }),
              run: () => linkProvider(account.providerId, "/account"),
              undoneMessage: t("account.linkingAgain", { provider: name }),
            },
          }),
    });
    await queryClient.invalidateQueries({ queryKey: accountsQuery.queryKey });
  };
  const passkeys = useQuery(passkeysQuery);
  const passkeyCount = passkeys.data?.length ?? 0;
  const last = accounts.data?.length === 1;
  return (
    <Section id="accounts-title" title={t("account.methodsTitle")}>
      <FormAlert message={accounts.error ? errorMessage(accounts.error) : undefined} cause={accounts.error} />
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {accounts.isPending && <p role="status">{t("account.loading")}</p>}
      <ul className="list">
        {accounts.data?.map((account) => {
          const name = nameOf(account.providerId);
          return (
            <li key={account.id}>
              <span>
                <strong>{name}</strong>
                <span className="muted"> · {t("account.linkedOn", { date: new Date(account.createdAt).toLocaleDateString(language) })}</span>
              </span>
              <ConfirmButton
                danger={false}
                disabled={last}
                title={t("account.unlinkTitle", { provider: name })}
                description={<p>{account.providerId === "credential" ? t("account.unlinkPasswordDescription") : t("account.unlinkDescription", { provider: name })}</p>}
                confirmLabel={t("account.unlink")}
                pendingText={t("account.unlinking")}
                onConfirm={() => unlink(account)}
              >
                {t("account.unlink")}
                <span className="visually-hidden"> {name}</span>
              </ConfirmButton>
            </li>
          );
        })}
        {/* Passkeys are counted here; the Passkeys section lists and manages them. */}
        {passkeyCount > 0 && (
          <li>
            <strong>{t("account.passkeyCount", { count: passkeyCount })}</strong>
          </li>
        )}
      </ul>
      {last && <p className="muted">{t("account.lastMethod")}</p>}
      {accounts.data?.length === 0 && passkeys.data && passkeyCount === 0 && <p>{t("account.noMethods")}</p>}
      {accounts.data && <SocialButtons mode="link" callbackURL="/account" except={accounts.data.map((account) => account.providerId)} />}
    </Section>
  );
}

/** Each way of signing devices out asks first and says what it did; a session ended cannot be brought back. */
function ActiveSessions({ current }: { current: SessionWithUser }) {
  const t = useT();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: api.listSessions });
  const [done, setDone] = useState<Done>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["sessions"] });
  const revoke = async (session: Session, device: string) => {
    await api.revokeSession(session.token);
    setDone({ message: t("account.deviceSignedOut", { device }) });
    await refresh();
  };
  const revokeOthers = async () => {
    await api.revokeOtherSessions();
    setDone({ message: t("account.othersSignedOut") });
    await refresh();
  };
  const revokeAll = async () => {
    await api.revokeSessions();
    noteSignedOutEverywhere();
    queryClient.setQueryData(sessionQuery.queryKey, null);
    await navigate({ to: "/sign-in" });
  };
  const providerNames = useSocialProviders().data?.names;
  const ordered = [...(sessions.data ?? [])].sort((a, b) => (a.id === current.session.id ? -1 : b.id === current.session.id ? 1 : b.updatedAt.localeCompare(a.updatedAt)));
  return (
    <Section id="sessions-title" title={t("account.sessionsTitle")}>
      <FormAlert message={sessions.error ? errorMessage(sessions.error) : undefined} cause={sessions.error} />
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {sessions.isPending && <p role="status">{t("account.loading")}</p>}
      <ul className="list" aria-label={t("account.sessionsList")}>
        {ordered.map((session) => {
          const self = session.id === current.session.id;
          const device = describeUserAgent(session.userAgent);
          const where = session.ipAddress ?? t("account.unknownIp");
          const how = describeSignInMethod(session, providerNames);
          return (
            <li key={session.id} className={self ? "current" : undefined}>
              <span>
                <strong>{device}</strong>
                {self && <span className="badge">{t("account.thisDevice")}</span>}
                <br />
                <span className="muted">
                  {where} · {how && <>{how} · </>}
                  {t("account.lastActive")} <time dateTime={session.updatedAt}>{new Date(session.updatedAt).toLocaleString(language)}</time>
                </span>
              </span>
              {!self && (
                <ConfirmButton
                  danger={false}
                  title={t("account.signOutDeviceTitle", { device })}
                  description={<p>{t("account.signOutDeviceDescription", { device, where })}</p>}
                  confirmLabel={t("account.signOut")}
                  pendingText={t("account.signingOut")}
                  onConfirm={() => revoke(session, device)}
                >
                  {t("account.signOut")}
                  <span className="visually-hidden"> {t("account.deviceAt", { device, where })}</span>
                </ConfirmButton>
              )}
            </li>
          );
        })}
      </ul>
      <div className="row">
        <ConfirmButton
          danger={false}
          disabled={ordered.length < 2}
          title={t("account.signOutOthersTitle")}
          description={<p>{t("account.signOutOthersDescription")}</p>}
          confirmLabel={t("account.signOutOthers")}
          pendingText={t("account.signingOut")}
          onConfirm={revokeOthers}
        >
          {t("account.signOutOthers")}
        </ConfirmButton>
        <ConfirmButton
          title={t("account.signOutEverywhereTitle")}
          description={<p>{t("account.signOutEverywhereDescription")}</p>}
          confirmLabel={t("account.signOutEverywhere")}
          pendingText={t("account.signingOut")}
          onConfirm={revokeAll}
        >
          {t("account.signOutEverywhere")}
        </ConfirmButton>
      </div>
    </Section>
  );
}

/**
 * Deleting asks first, for the password when there is one (without one, a provider's account only, the
 * server confirms another way). With mailed confirmation (the default) nothing is deleted until its link is
 * opened: ignoring the mail is the way back; deleted at once, there is none.
 */
function DeleteAccount({ hasPassword }: { hasPassword: boolean | undefined }) {
  const t = useT();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const [done, setDone] = useState<Done>();
  const remove = async () => {
    const result = await api.deleteUser({ password: password || undefined, callbackURL: "/goodbye" });
    setPassword("");
    if (result.message === "User deleted") {
      queryClient.setQueryData(sessionQuery.queryKey, null);
      await navigate({ to: "/goodbye" });
      return;
    }
    setDone({ message: t("account.deleteMailSent") });
  };
  return (
    <Section id="delete-title" title={t("account.deleteTitle")}>
      <p>{t("account.deleteIntro")}</p>
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      <ConfirmButton
        title={t("account.deleteConfirmTitle")}
        description={
          <>
            <p>{t("account.deleteConfirmDescription")}</p>
            {hasPassword !== false && (
              <Field
                label={t("account.password")}
                name="deletePassword"
                type="password"
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </>
        }
        confirmLabel={t("account.deleteAccount")}
        pendingText={t("account.deleting")}
        onConfirm={remove}
      >
        {t("account.deleteAccount")}
      </ConfirmButton>
    </Section>
  );
}
