/**
 * Sign-in without a password, by a link or a code mailed to the address (docs/http-api/mail-sign-in.md),
 * and a password reset by code: offered only when the platform has them on (GET /mail-sign-in-options; none
 * when the route is absent). Asking says the same words whether or not the address has an account.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api, needsSecondFactor } from "./api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "./components";
import { useT } from "./i18n";
import { passwordAcceptable } from "./password-rules";
import { safeRedirect } from "./safe-redirect";
import { type LocalRefusal, PasswordRules } from "./screens/sign-up";
import { sessionQuery } from "./session";

export const useMailSignInOptions = () => useQuery({ queryKey: ["mail-sign-in-options"], queryFn: api.mailSignInOptions, staleTime: Infinity });

/**
 * The address a sign-in code was mailed to, for the code screen: in memory only, never in the page's address
 * (an address is personal data, and the page's address reaches the Referer and any analytics script). A
 * reload forgets it: the code screen then sends the person back to ask again.
 */
let codeEmail: string | undefined;

/** The sign-in screen's own address with where to go after: a failed link lands back on it with ?error=. */
const signInUrl = (redirect?: string) => (redirect ? `/sign-in?redirect=${encodeURIComponent(redirect)}` : "/sign-in");

/** The sign-in screen's offer: an address, then a link or a code mailed to it. Nothing when both are off. */
export function MailSignIn({ redirect }: { redirect?: string }) {
  const t = useT();
  const options = useMailSignInOptions();
  const navigate = useNavigate();
  const [email, setEmail] = useState("");
  const link = useMutation({
    mutationFn: () => api.signInMagicLink({ email: email.trim(), callbackURL: safeRedirect(redirect), errorCallbackURL: signInUrl(redirect) }),
  });
  const code = useMutation({
    mutationFn: () => api.sendEmailOtp({ email: email.trim(), type: "sign-in" }),
    onSuccess: () => {
      codeEmail = email.trim();
      return navigate({ to: "/sign-in/code", search: redirect ? { redirect } : {} });
    },
  });
  if (!options.data?.magicLink && !options.data?.emailOtp) return null;
  const error = link.error ?? code.error;
  const placed = error ? placeError(error, ["email"]) : undefined;
  const pending = link.isPending || code.isPending;
  const ask = (which: typeof link | typeof code) => (event: FormEvent) => {
    event.preventDefault();
    which.mutate();
  };
  return (
    <section className="mail-sign-in" aria-labelledby="mail-sign-in-title">
      <h2 id="mail-sign-in-title">{t("mailSignIn.title")}</h2>
      {link.isSuccess ? (
        <FormAlert tone="success" message={t("mailSignIn.linkSent", { email: email.trim() })} />
      ) : (
        <form onSubmit={ask(options.data.magicLink ? link : code)} noValidate>
          <FormAlert message={placed && !placed.field ? placed.message : undefined} cause={error} />
          <Field
            label={t("mailSignIn.email")}
            name="mail-sign-in-email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={placed?.field ? placed.message : undefined}
          />
          <div className="row">
            {options.data.magicLink && (
              <button type="submit" disabled={pending} aria-busy={link.isPending || undefined}>
                {link.isPending ? t("mailSignIn.sending") : t("mailSignIn.sendLink")}
              </button>
            )}
            {options.data.emailOtp && (
              <button
                type={options.data.magicLink ? "button" : "submit"}
                onClick={options.data.magicLink ? ask(code) : undefined}
                disabled={pending}
                aria-busy={code.isPending || undefined}
              >
                {code.isPending ? t("mailSignIn.sending") : t("mailSignIn.sendCode")}
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

/** /sign-in/code: the mailed sign-in code, typed in. */
export function EmailCodeSignIn() {
  const t = useT();
  const search = useSearch({ strict: false }) as { redirect?: string };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const email = codeEmail ?? "";
  const [otp, setOtp] = useState("");
  const signIn = useMutation({
    mutationFn: () => api.signInEmailOtp({ email, otp: otp.trim() }),
    onSuccess: async (result) => {
      if (needsSecondFactor(result)) {
        const methods = (result.twoFactorMethods ?? ["totp", "otp"]).join(",");
        return navigate({ to: "/two-factor", search: { methods, ...(search.redirect ? { redirect: search.redirect } : {}) } });
      }
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      await navigate({ to: safeRedirect(search.redirect) });
    },
  });
  const resend = useMutation({ mutationFn: () => api.sendEmailOtp({ email, type: "sign-in" }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const placed = signIn.error ? placeError(signIn.error, []) : undefined;
  const back = (
    <p>
      <Link to="/sign-in" search={search.redirect ? { redirect: search.redirect } : {}}>
        {t("mailSignIn.backToSignIn")}
      </Link>
    </p>
  );
  if (!email) {
    return (
      <Page title={t("mailSignIn.codeTitle")}>
        <p>{t("mailSignIn.noEmail")}</p>
        {back}
      </Page>
    );
  }
  return (
    <Page title={t("mailSignIn.codeTitle")}>
      <p>{t("mailSignIn.codeIntro", { email })}</p>
      <form onSubmit={submit} noValidate>
        <FormAlert
          message={placed?.message ?? (resend.isSuccess ? t("mailSignIn.codeResent") : undefined)}
          tone={placed ? "error" : "success"}
          cause={signIn.error ?? resend.data}
        />
        <Field label={t("mailSignIn.code")} name="otp" inputMode="numeric" autoComplete="one-time-code" required value={otp} onChange={(e) => setOtp(e.target.value)} />
        <SubmitButton pending={signIn.isPending} pendingText={t("mailSignIn.signingIn")}>
          {t("mailSignIn.signIn")}
        </SubmitButton>
      </form>
      <p>
        <button type="button" className="link" onClick={() => resend.mutate()} disabled={resend.isPending}>
          {t("mailSignIn.resend")}
        </button>
      </p>
      {back}
    </Page>
  );
}

/** The forgot-password screen's other way, when codes are on: a code mailed, typed in with the new password. */
export function ResetByCodeOffer() {
  const t = useT();
  const options = useMailSignInOptions();
  if (!options.data?.emailOtp) return null;
  return (
    <p>
      <Link to="/forgot-password/code">{t("mailSignIn.resetByCode")}</Link>
    </p>
  );
}

/** /forgot-password/code: ask for a reset code, then type it with the new password. */
export function ResetPasswordByCode() {
  const t = useT();
  const [email, setEmail] = useState("");
  const [otp, setOtp] = useState("");
  const [password, setPassword] = useState("");
  const [localError, setLocalError] = useState<LocalRefusal>();
  const request = useMutation({ mutationFn: () => api.requestPasswordResetOtp({ email: email.trim() }) });
  const reset = useMutation({ mutationFn: () => api.resetPasswordOtp({ email: email.trim(), otp: otp.trim(), password }) });
  if (reset.isSuccess) {
    return (
      <Page title={t("passwordReset.changedTitle")}>
        <FormAlert tone="success" message={t("passwordReset.changed")} />
        <p>
          <Link to="/sign-in">{t("passwordReset.signIn")}</Link>
        </p>
      </Page>
    );
  }
  if (!request.isSuccess) {
    const placed = request.error ? placeError(request.error, ["email"]) : undefined;
    return (
      <Page title={t("passwordReset.forgotTitle")}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            request.mutate();
          }}
          noValidate
        >
          <p>{t("mailSignIn.resetIntro")}</p>
          <FormAlert message={placed && !placed.field ? placed.message : undefined} cause={request.error} />
          <Field
            label={t("passwordReset.email")}
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={placed?.field ? placed.message : undefined}
          />
          <SubmitButton pending={request.isPending} pendingText={t("mailSignIn.sending")}>
            {t("mailSignIn.sendCode")}
          </SubmitButton>
        </form>
      </Page>
    );
  }
  const placed = reset.error ? placeError(reset.error, ["password"]) : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(password)) return setLocalError({ message: t("passwordReset.meetRules") });
    setLocalError(undefined);
    reset.mutate();
  };
  return (
    <Page title={t("passwordReset.chooseTitle")}>
      {/* The same words whether or not the address has an account (the server's answer says no more). */}
      <p>{t("mailSignIn.codeIntro", { email: email.trim() })}</p>
      <form onSubmit={submit} noValidate>
        <FormAlert message={localError?.message ?? (placed && !placed.field ? placed.message : undefined)} cause={localError ?? reset.error} />
        <Field label={t("mailSignIn.code")} name="otp" inputMode="numeric" autoComplete="one-time-code" required value={otp} onChange={(e) => setOtp(e.target.value)} />
        <Field
          label={t("passwordReset.newPassword")}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={placed?.field ? placed.message : undefined}
          hint={<PasswordRules password={password} />}
        />
        <SubmitButton pending={reset.isPending} pendingText={t("passwordReset.saving")}>
          {t("passwordReset.save")}
        </SubmitButton>
      </form>
    </Page>
  );
}
