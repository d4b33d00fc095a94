import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { api, errorMessage, needsSecondFactor, suspendedMessage } from "../api";
import { DoneNotice, Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { errorSentence } from "../error-codes";
import { useT } from "../i18n";
import { cancelPasskeyCeremony, passkeyAutofillSupported, passkeyDialogClosed, passkeysSupported, signInWithPasskey, signInWithPasskeyAutofill } from "../passkeys";
import { safeRedirect } from "../safe-redirect";
import { clearSignedOutEverywhere, sessionQuery, signedOutEverywhere } from "../session";
import { MailSignIn } from "../mail-sign-in";
import { SocialButtons } from "../social";

/** The sign-in screen's own address (with where to go after), where a failed social sign-in comes back to. */
const signInUrl = (redirect?: string) => (redirect ? `/sign-in?redirect=${encodeURIComponent(redirect)}` : "/sign-in");

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
  const signIn = useMutation({
    mutationFn: () =>
      identifier.includes("@") ? api.signInEmail({ email: identifier.trim(), password, rememberMe }) : api.signInUsername({ username: identifier.trim(), password, rememberMe }),
    onSuccess: async (result) => {
      if (needsSecondFactor(result)) {
        const methods = (result.twoFactorMethods ?? ["totp", "otp"]).join(",");
        return navigate({ to: "/two-factor", search: { methods, ...(search.redirect ? { redirect: search.redirect } : {}) } });
      }
      await signedIn();
    },
  });
  // A passkey sign-in opens the session at once (no second factor: docs/http-api/passkeys.md).
  const passkey = useMutation({ mutationFn: signInWithPasskey, onSuccess: signedIn });
  const [autofillError, setAutofillError] = useState<unknown>();
  // Autofill (conditional mediation): a request waits, unseen, until the person picks a passkey among the
  // identifier field's suggestions; the button's request replaces it, and leaving the screen ends it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: started once per visit of the screen.
  useEffect(() => {
    let active = true;
    void passkeyAutofillSupported().then((supported) => {
      if (!supported || !active) return;
      signInWithPasskeyAutofill().then(
        (answer) => (answer ? signedIn() : undefined),
        (error: unknown) => {
          if (active && !passkeyDialogClosed(error)) setAutofillError(error);
        },
      );
    });
    return () => {
      active = false;
      cancelPasskeyCeremony();
    };
  }, []);
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
    ? passkeyDialogClosed(passkeyError)
      ? t("passkeys.cancelled")
      : errorMessage(passkeyError)
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
          label={t("signIn.password")}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
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
