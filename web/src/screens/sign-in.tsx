import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError, api, needsSecondFactor, type SignInResult, suspendedMessage } from "../api";
import { DoneNotice, Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { errorSentence } from "../error-codes";
import { useT } from "../i18n";
import {
  cancelPasskeyCeremony,
  passkeyAutofillSupported,
  passkeyDialogClosed,
  passkeyFailureMessage,
  passkeysSupported,
  signInWithPasskey,
  signInWithPasskeyAutofill,
} from "../passkeys";
import { safeRedirect } from "../safe-redirect";
import { clearSignedOutEverywhere, sessionQuery, signedOutEverywhere } from "../session";
import { MailSignIn } from "../mail-sign-in";
import { SocialButtons } from "../social";

/** The sign-in screen's own address (with where to go after), where a failed social sign-in comes back to. */
const signInUrl = (redirect?: string) => (redirect ? `/sign-in?redirect=${encodeURIComponent(redirect)}` : "/sign-in");

/** POST /sign-in/sso's answers for an address no organization's provider signs in: the password (and the rest) then. */
const NOT_ROUTED = new Set(["PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED", "PROVIDER_NOT_FOUND"]);

/** The sign-in's outcome: the organization's provider to leave for, or the password sign-in's answer. */
type Outcome = { sso: string } | { result: SignInResult };

/** Leaves for the organization's identity provider (another site: a full navigation). */
const leaveFor = (url: string) => window.location.assign(url);

export function SignIn() {
  const t = useT();
  // `error`: a social sign-in that failed comes back here with the gateway's redirect code.
  const search = useSearch({ strict: false }) as { redirect?: string; error?: unknown };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [identifier, setIdentifier] = useState("");
  const [password, setPassword] = useState("");
  const [rememberMe, setRememberMe] = useState(true);
  // Said once, after the account page signed this browser out with every other (sign out everywhere).
  const [signedOut, setSignedOut] = useState(signedOutEverywhere);
  useEffect(clearSignedOutEverywhere, []);
  const signedIn = async () => {
    await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
    await navigate({ to: safeRedirect(search.redirect) });
  };
  // Email first (docs/sso.md): an address at a domain an organization verified for its identity provider
  // signs in there, password or not; any other address, or a username, signs in with the password.
  const [passwordNeeded, setPasswordNeeded] = useState(false);
  const signIn = useMutation({
    mutationFn: async (): Promise<Outcome | null> => {
      const id = identifier.trim();
      if (id.includes("@")) {
        const routed = await api.signInSso({ email: id, callbackURL: safeRedirect(search.redirect), errorCallbackURL: signInUrl(search.redirect) }).catch((error: unknown) => {
          if (error instanceof ApiError && NOT_ROUTED.has(error.code)) return null;
          throw error;
        });
        if (routed) return { sso: routed.url };
      }
      if (!password) return null;
      return { result: await (id.includes("@") ? api.signInEmail({ email: id, password, rememberMe }) : api.signInUsername({ username: id, password, rememberMe })) };
    },
    onMutate: () => setPasswordNeeded(false),
    onSuccess: async (outcome) => {
      if (outcome === null) return setPasswordNeeded(true);
      if ("sso" in outcome) return leaveFor(outcome.sso);
      const { result } = outcome;
      if (needsSecondFactor(result)) {
        const methods = (result.twoFactorMethods ?? ["totp", "otp"]).join(",");
        return navigate({ to: "/two-factor", search: { methods, ...(search.redirect ? { redirect: search.redirect } : {}) } });
      }
      await signedIn();
    },
  });
  const [autofillError, setAutofillError] = useState<unknown>();
  // Autofill (conditional mediation): a request waits, unseen, until the person picks a passkey among the
  // identifier field's suggestions; the button's request replaces it, and leaving the screen ends it. A
  // passkey sign-in that ends without a session (refused, or the button's dialog closed) starts it again,
  // so the field keeps offering passkeys. Each visit has its own flag: a request started for a visit that
  // ended stops there (the screen's effect can run, end and run again as it mounts).
  const visit = useRef({ left: true });
  const offerPasskeysInField = () => {
    const current = visit.current;
    void passkeyAutofillSupported().then((supported) => {
      if (!supported || current.left) return;
      signInWithPasskeyAutofill().then(
        (answer) => (answer ? signedIn() : undefined),
        (error: unknown) => {
          // Closed: another ceremony replaced it or the screen was left; that one restarts it if need be.
          if (current.left || passkeyDialogClosed(error)) return;
          setAutofillError(error);
          offerPasskeysInField();
        },
      );
    });
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: started once per visit of the screen.
  useEffect(() => {
    const current = { left: false };
    visit.current = current;
    offerPasskeysInField();
    return () => {
      current.left = true;
      cancelPasskeyCeremony();
    };
  }, []);
  // A passkey sign-in opens the session at once (no second factor: docs/http-api/passkeys.md).
  const passkey = useMutation({ mutationFn: signInWithPasskey, onSuccess: signedIn, onError: offerPasskeysInField });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    passkey.reset();
    setAutofillError(undefined);
    signIn.mutate();
  };
  const socialError = typeof search.error === "string" && search.error ? search.error.slice(0, 200) : undefined;
  // The newest refusal: this form's, once it was sent; before that, the social sign-in's that led here.
  const passkeyError = passkey.error ?? autofillError;
  const message = passkeyError
    ? passkeyFailureMessage(passkeyError)
    : signIn.error
      ? placeError(signIn.error, []).message
      : signIn.isIdle && socialError
        ? socialError === "BANNED_USER"
          ? suspendedMessage(undefined)
          : errorSentence(socialError)
        : undefined;
  return (
    <Page title={t("signIn.title")}>
      <DoneNotice done={signedOut ? { message: t("signIn.signedOutEverywhere") } : undefined} onClear={() => setSignedOut(false)} />
      <form onSubmit={submit} noValidate>
        <FormAlert message={message} cause={passkeyError ?? signIn.error} />
        <Field label={t("signIn.identifier")} name="identifier" autoComplete="username webauthn" required value={identifier} onChange={(e) => setIdentifier(e.target.value)} />
        <Field
          key={`password-${signIn.submittedAt}`}
          label={t("signIn.password")}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={passwordNeeded ? t("signIn.passwordNeeded") : undefined}
          hint={t("signIn.passwordHint")}
        />
        <div className="check">
          <input id="remember-me" type="checkbox" checked={rememberMe} onChange={(e) => setRememberMe(e.target.checked)} />
          <label htmlFor="remember-me">{t("signIn.rememberMe")}</label>
        </div>
        <SubmitButton pending={signIn.isPending} pendingText={t("signIn.submitting")}>
          {t("signIn.submit")}
        </SubmitButton>
      </form>
      {passkeysSupported() && (
        <div className="row">
          <button
            type="button"
            onClick={() => {
              signIn.reset();
              setAutofillError(undefined);
              passkey.mutate();
            }}
            disabled={passkey.isPending}
            aria-busy={passkey.isPending || undefined}
          >
            {passkey.isPending ? t("passkeys.signingIn") : t("passkeys.signIn")}
          </button>
        </div>
      )}
      <MailSignIn redirect={search.redirect} />
      <SocialButtons mode="sign-in" callbackURL={safeRedirect(search.redirect)} errorCallbackURL={signInUrl(search.redirect)} />
      <p>
        <Link to="/forgot-password">{t("signIn.forgotPassword")}</Link>
      </p>
      <p>
        {t("signIn.newHere")}{" "}
        <Link to="/sign-up" search={search.redirect ? { redirect: search.redirect } : {}}>
          {t("signIn.createAccount")}
        </Link>
      </p>
    </Page>
  );
}
