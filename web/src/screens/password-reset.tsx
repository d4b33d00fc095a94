import { useMutation } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { api } from "../api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { errorSentence } from "../error-codes";
import { useT } from "../i18n";
import { ResetByCodeOffer } from "../mail-sign-in";
import { passwordAcceptable } from "../password-rules";
import { type LocalRefusal, PasswordRules } from "./sign-up";

export function ForgotPassword() {
  const t = useT();
  const [email, setEmail] = useState("");
  const request = useMutation({ mutationFn: () => api.forgetPassword({ email: email.trim(), redirectTo: "/reset-password" }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  const placed = request.error ? placeError(request.error, ["email"]) : undefined;
  return (
    <Page title={t("passwordReset.forgotTitle")}>
      {request.isSuccess ? (
        // The same words whether or not the address has an account (the server's answer says no more).
        <FormAlert tone="success" message={t("passwordReset.sent")} />
      ) : (
        <form onSubmit={submit} noValidate>
          <p>{t("passwordReset.forgotIntro")}</p>
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
          <SubmitButton pending={request.isPending} pendingText={t("passwordReset.sending")}>
            {t("passwordReset.send")}
          </SubmitButton>
        </form>
      )}
      <ResetByCodeOffer />
      <p>
        <Link to="/sign-in">{t("passwordReset.backToSignIn")}</Link>
      </p>
    </Page>
  );
}

/**
 * The reset token of this page's life, once taken out of the address: in memory only (not the history's
 * state, not storage), so nothing but this page ever holds it. A module variable, not component state:
 * leaving /reset-password/{token} for /reset-password mounts the screen anew.
 */
let heldToken: string | undefined;

/**
 * /reset-password/{token}, and /reset-password?token= or ?error= where the gateway's mail link lands. The
 * token is taken out of the address at once (the history entry is replaced by plain /reset-password), so
 * Back, the history and any later page view never show it; a reload then has no token and says to open the
 * mailed link again (the link stays valid until used).
 */
export function ResetPassword() {
  const t = useT();
  const params = useParams({ strict: false }) as { token?: string };
  const search = useSearch({ strict: false }) as { token?: string; error?: string };
  const navigate = useNavigate();
  const inAddress = params.token ?? search.token;
  const token = inAddress ?? heldToken;
  useEffect(() => {
    if (!inAddress) return;
    heldToken = inAddress;
    void navigate({ to: "/reset-password", search: search.error ? { error: search.error } : {}, replace: true });
  }, [inAddress, search.error, navigate]);
  const [password, setPassword] = useState("");
  const [localError, setLocalError] = useState<LocalRefusal>();
  const reset = useMutation({
    mutationFn: () => api.resetPassword({ newPassword: password, token: token! }),
    // Used up: coming back to this screen later shows no form for it.
    onSuccess: () => {
      heldToken = undefined;
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(password)) return setLocalError({ message: t("passwordReset.meetRules") });
    setLocalError(undefined);
    reset.mutate();
  };
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
  if (search.error || !token) {
    return (
      <Page title={t("passwordReset.resetTitle")}>
        {/* No token in the address nor held: typed by hand, or reloaded after the token was taken out. */}
        <FormAlert message={search.error ? errorSentence(search.error) : t("passwordReset.noToken")} />
        <p>
          <Link to="/forgot-password">{t("passwordReset.askAgain")}</Link>
        </p>
      </Page>
    );
  }
  const placed = reset.error ? placeError(reset.error, ["password"]) : undefined;
  return (
    <Page title={t("passwordReset.chooseTitle")}>
      <form onSubmit={submit} noValidate>
        <FormAlert message={localError?.message ?? (placed && !placed.field ? placed.message : undefined)} cause={localError ?? reset.error} />
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
