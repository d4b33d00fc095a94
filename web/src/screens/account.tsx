import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type ChangeEvent, type FormEvent, type ReactNode, useState } from "react";
import { providerName, SocialButtons } from "../social";
import { api, type LinkedAccount, type Session, type SessionWithUser, errorMessage } from "../api";
import { AvatarError, avatarDataUrl, shownImage } from "../avatar";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { passwordAcceptable } from "../password-rules";
import { sessionQuery, useSession } from "../session";
import { describeUserAgent } from "../user-agent";
import { PasswordRules } from "./sign-up";
import { TwoFactorSection } from "./two-factor";

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
  const session = useSession();
  const accounts = useQuery(accountsQuery);
  // Whether the person has a password (a credential account); undefined until the list comes.
  const hasPassword = accounts.data?.some((account) => account.providerId === "credential");
  if (!session.data) return null;
  return (
    <Page title="Your account" narrow={false}>
      <Profile current={session.data} />
      <ChangeEmail current={session.data} />
      <PasswordSection current={session.data} />
      {/* Only where the platform has the two-factor API (its user JSON then carries twoFactorEnabled). */}
      {"twoFactorEnabled" in session.data.user && <TwoFactorSection current={session.data} hasPassword={hasPassword} />}
      <LinkedAccounts />
      <ActiveSessions current={session.data} />
      <DeleteAccount hasPassword={hasPassword} />
    </Page>
  );
}

function Profile({ current }: { current: SessionWithUser }) {
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
      setImageError(error instanceof AvatarError ? error.message : "The image could not be read.");
      event.target.value = "";
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Section id="profile-title" title="Profile">
      <form onSubmit={submit} noValidate>
        <FormAlert message={save.error ? errorMessage(save.error) : undefined} />
        {save.isSuccess && <FormAlert tone="success" message="Your profile has been saved." />}
        <div className="avatar-row">
          {image ? (
            // biome-ignore lint/a11y/noRedundantAlt: "profile picture" is what the image is (the account's picture), not a description of an image.
            <img className="avatar" src={image} alt="Your profile picture" width={64} height={64} />
          ) : (
            <div className="avatar placeholder" aria-hidden="true">
              {current.user.name.slice(0, 1).toUpperCase()}
            </div>
          )}
          <div>
            <Field label="Profile picture (up to 4 MB)" name="image" type="file" accept="image/*" onChange={choose} error={imageError} />
            {image && (
              <button type="button" className="link" onClick={() => setImage(null)}>
                Remove picture
              </button>
            )}
          </div>
        </div>
        <Field label="Name" name="name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
        <p className="muted">
          Email: {current.user.email} {current.user.emailVerified ? "(verified)" : "(not verified)"}
          {current.user.username ? ` · Username: ${current.user.displayUsername ?? current.user.username}` : ""}
        </p>
        <SubmitButton pending={save.isPending} pendingText="Saving…">
          Save profile
        </SubmitButton>
      </form>
      {!current.user.emailVerified && <ResendVerification email={current.user.email} />}
    </Section>
  );
}

function ResendVerification({ email }: { email: string }) {
  const send = useMutation({ mutationFn: () => api.sendVerificationEmail({ email, callbackURL: "/verify-email" }) });
  return (
    <div className="row">
      <FormAlert message={send.error ? errorMessage(send.error) : undefined} />
      {send.isSuccess ? (
        <FormAlert tone="success" message={`We sent a new verification link to ${email}.`} />
      ) : (
        <button type="button" onClick={() => send.mutate()} disabled={send.isPending} aria-busy={send.isPending || undefined}>
          {send.isPending ? "Sending…" : "Send the verification email again"}
        </button>
      )}
    </div>
  );
}

function ChangeEmail({ current }: { current: SessionWithUser }) {
  const queryClient = useQueryClient();
  const [newEmail, setNewEmail] = useState("");
  const change = useMutation({
    mutationFn: () => api.changeEmail({ newEmail: newEmail.trim(), callbackURL: "/verify-email" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  const placed = change.error ? placeError(change.error, ["newEmail"], { email: "newEmail" }) : undefined;
  const done = current.user.emailVerified
    ? `We sent a link to ${current.user.email} to approve the change. Your email stays the same until the change is approved and the new address verified.`
    : "Your email address has been changed.";
  return (
    <Section id="email-title" title="Email address">
      <form onSubmit={submit} noValidate>
        <FormAlert message={placed && !placed.field ? placed.message : undefined} />
        {change.isSuccess && <FormAlert tone="success" message={done} />}
        <Field
          label="New email address"
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          error={placed?.field ? placed.message : undefined}
        />
        <SubmitButton pending={change.isPending} pendingText="Changing…">
          Change email
        </SubmitButton>
      </form>
    </Section>
  );
}

/**
 * Change the password, or, for someone who signs in only through a provider (no credential account), set
 * one: setting a password without the current one is no route of the user's own (docs/http-api/account.md), so the app mails the person a
 * password-reset link to their own verified address, and the reset creates the credential account.
 */
function PasswordSection({ current }: { current: SessionWithUser }) {
  const accounts = useQuery(accountsQuery);
  return (
    <Section id="password-title" title="Password">
      <FormAlert message={accounts.error ? errorMessage(accounts.error) : undefined} />
      {accounts.isPending && <p role="status">Loading…</p>}
      {accounts.data && (accounts.data.some((account) => account.providerId === "credential") ? <ChangePassword /> : <SetPassword current={current} />)}
    </Section>
  );
}

function SetPassword({ current }: { current: SessionWithUser }) {
  const { email, emailVerified } = current.user;
  const send = useMutation({ mutationFn: () => api.forgetPassword({ email, redirectTo: "/reset-password" }) });
  if (!emailVerified) return <p>You have no password yet. Verify your email address first, then you can set one here.</p>;
  if (send.isSuccess) return <FormAlert tone="success" message={`We sent a link to ${email}. Open it to choose your password.`} />;
  return (
    <>
      <p>You have no password yet: you sign in through another service. Set a password to also sign in with your email address.</p>
      <FormAlert message={send.error ? errorMessage(send.error) : undefined} />
      <button type="button" onClick={() => send.mutate()} disabled={send.isPending} aria-busy={send.isPending || undefined}>
        {send.isPending ? "Sending…" : "Set a password"}
      </button>
    </>
  );
}

function ChangePassword() {
  const queryClient = useQueryClient();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [revokeOthers, setRevokeOthers] = useState(true);
  const [localError, setLocalError] = useState<string>();
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
    if (!passwordAcceptable(newPassword)) return setLocalError("Choose a new password that meets the rules below.");
    setLocalError(undefined);
    change.mutate();
  };
  const placed = change.error ? placeError(change.error, ["currentPassword", "newPassword"], { password: "newPassword" }) : undefined;
  return (
    <form onSubmit={submit} noValidate>
      <FormAlert message={localError ?? (placed && !placed.field ? placed.message : undefined)} />
      {change.isSuccess && <FormAlert tone="success" message="Your password has been changed." />}
      <Field
        label="Current password"
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        required
        value={currentPassword}
        onChange={(e) => setCurrentPassword(e.target.value)}
        error={placed?.field === "currentPassword" ? placed.message : undefined}
      />
      <Field
        label="New password"
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
        <label htmlFor="revoke-others">Sign out my other devices</label>
      </div>
      <SubmitButton pending={change.isPending} pendingText="Changing…">
        Change password
      </SubmitButton>
    </form>
  );
}

function LinkedAccounts() {
  const queryClient = useQueryClient();
  const accounts = useQuery(accountsQuery);
  const unlink = useMutation({
    mutationFn: (account: LinkedAccount) => api.unlinkAccount(account),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountsQuery.queryKey }),
  });
  return (
    <Section id="accounts-title" title="Sign-in methods">
      <FormAlert message={accounts.error ? errorMessage(accounts.error) : unlink.error ? errorMessage(unlink.error) : undefined} />
      {accounts.isPending && <p role="status">Loading…</p>}
      <ul className="list">
        {accounts.data?.map((account) => (
          <li key={account.id}>
            <span>
              <strong>{providerName(account.providerId)}</strong>
              <span className="muted"> · linked {new Date(account.createdAt).toLocaleDateString()}</span>
            </span>
            <button
              type="button"
              onClick={() => unlink.mutate(account)}
              disabled={unlink.isPending || accounts.data.length < 2}
              aria-busy={(unlink.isPending && unlink.variables?.id === account.id) || undefined}
              aria-label={`Unlink ${providerName(account.providerId)}`}
              title={accounts.data.length < 2 ? "Your last sign-in method cannot be removed" : undefined}
            >
              {unlink.isPending && unlink.variables?.id === account.id ? "Unlinking…" : "Unlink"}
            </button>
          </li>
        ))}
      </ul>
      {accounts.data && <SocialButtons mode="link" callbackURL="/account" except={accounts.data.map((account) => account.providerId)} />}
    </Section>
  );
}

function ActiveSessions({ current }: { current: SessionWithUser }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: api.listSessions });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["sessions"] });
  const revoke = useMutation({ mutationFn: (session: Session) => api.revokeSession(session.token), onSuccess: refresh });
  const revokeOthers = useMutation({ mutationFn: api.revokeOtherSessions, onSuccess: refresh });
  const revokeAll = useMutation({
    mutationFn: api.revokeSessions,
    onSuccess: async () => {
      queryClient.setQueryData(sessionQuery.queryKey, null);
      await navigate({ to: "/sign-in" });
    },
  });
  const failure = revoke.error ?? revokeOthers.error ?? revokeAll.error ?? sessions.error;
  const busy = revoke.isPending || revokeOthers.isPending || revokeAll.isPending;
  const ordered = [...(sessions.data ?? [])].sort((a, b) => (a.id === current.session.id ? -1 : b.id === current.session.id ? 1 : b.updatedAt.localeCompare(a.updatedAt)));
  return (
    <Section id="sessions-title" title="Active sessions">
      <FormAlert message={failure ? errorMessage(failure) : undefined} />
      {revokeOthers.isSuccess && <FormAlert tone="success" message="Your other devices have been signed out." />}
      {sessions.isPending && <p role="status">Loading…</p>}
      <ul className="list" aria-label="Sessions">
        {ordered.map((session) => {
          const self = session.id === current.session.id;
          const device = describeUserAgent(session.userAgent);
          return (
            <li key={session.id} className={self ? "current" : undefined}>
              <span>
                <strong>{device}</strong>
                {self && <span className="badge">This device</span>}
                <br />
                <span className="muted">
                  {session.ipAddress ?? "Unknown IP address"} · last active <time dateTime={session.updatedAt}>{new Date(session.updatedAt).toLocaleString()}</time>
                </span>
              </span>
              {!self && (
                <button type="button" onClick={() => revoke.mutate(session)} disabled={busy} aria-label={`Sign out ${device} (${session.ipAddress ?? "unknown IP"})`}>
                  {revoke.isPending && revoke.variables?.id === session.id ? "Signing out…" : "Sign out"}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <div className="row">
        <button type="button" onClick={() => revokeOthers.mutate()} disabled={busy || ordered.length < 2} aria-busy={revokeOthers.isPending || undefined}>
          {revokeOthers.isPending ? "Signing out…" : "Sign out other devices"}
        </button>
        <button type="button" className="danger" onClick={() => revokeAll.mutate()} disabled={busy} aria-busy={revokeAll.isPending || undefined}>
          {revokeAll.isPending ? "Signing out…" : "Sign out everywhere"}
        </button>
      </div>
    </Section>
  );
}

/** Without a password (a provider's account only) there is none to ask for: the server confirms another way. */
function DeleteAccount({ hasPassword }: { hasPassword: boolean | undefined }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const remove = useMutation({
    mutationFn: () => api.deleteUser({ password: password || undefined, callbackURL: "/goodbye" }),
    onSuccess: async (result) => {
      if (result.message === "User deleted") {
        queryClient.setQueryData(sessionQuery.queryKey, null);
        await navigate({ to: "/goodbye" });
      }
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.mutate();
  };
  const placed = remove.error ? placeError(remove.error, ["deletePassword"], { currentPassword: "deletePassword" }) : undefined;
  return (
    <Section id="delete-title" title="Delete account">
      <p>Deleting your account removes your profile, sign-in methods and sessions. It cannot be undone.</p>
      {remove.isSuccess ? (
        <FormAlert tone="success" message="We sent you an email. Open its link to confirm that your account should be deleted." />
      ) : (
        <form onSubmit={submit} noValidate>
          <FormAlert message={placed && !placed.field ? placed.message : undefined} />
          {hasPassword !== false && (
            <Field
              label="Password"
              name="deletePassword"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={placed?.field ? placed.message : undefined}
            />
          )}
          <SubmitButton pending={remove.isPending} pendingText="Deleting…" className="danger">
            Delete my account
          </SubmitButton>
        </form>
      )}
    </Section>
  );
}
