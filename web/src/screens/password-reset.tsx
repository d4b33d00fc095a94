import { useMutation } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useState } from "react";
import { api } from "../api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { errorSentence } from "../error-codes";
import { passwordAcceptable } from "../password-rules";
import { PasswordRules } from "./sign-up";

export function ForgotPassword() {
  const [email, setEmail] = useState("");
  const request = useMutation({ mutationFn: () => api.forgetPassword({ email: email.trim(), redirectTo: "/reset-password" }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  const placed = request.error ? placeError(request.error, ["email"]) : undefined;
  return (
    <Page title="Forgot your password?">
      {request.isSuccess ? (
        <FormAlert tone="success" message={request.data.message} />
      ) : (
        <form onSubmit={submit} noValidate>
          <p>Enter the email address of your account and we will send you a link to choose a new password.</p>
          <FormAlert message={placed && !placed.field ? placed.message : undefined} />
          <Field
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={placed?.field ? placed.message : undefined}
          />
          <SubmitButton pending={request.isPending} pendingText="Sending…">
            Send reset link
          </SubmitButton>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
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

/** No token in the address nor held: typed by hand, or reloaded after the token was taken out. */
const NO_TOKEN = "This page has no reset link: once opened, the link is taken out of the address, so a reload loses it. Open the link from your email again, or ask for a new one.";

/**
 * /reset-password/{token}, and /reset-password?token= or ?error= where the gateway's mail link lands. The
 * token is taken out of the address at once (the history entry is replaced by plain /reset-password), so
 * Back, the history and any later page view never show it; a reload then has no token and says to open the
 * mailed link again (the link stays valid until used).
 */
export function ResetPassword() {
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
  const [localError, setLocalError] = useState<string>();
  const reset = useMutation({
    mutationFn: () => api.resetPassword({ newPassword: password, token: token! }),
    // Used up: coming back to this screen later shows no form for it.
    onSuccess: () => {
      heldToken = undefined;
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(password)) return setLocalError("Choose a password that meets the rules below.");
    setLocalError(undefined);
    reset.mutate();
  };
  if (reset.isSuccess) {
    return (
      <Page title="Password changed">
        <FormAlert tone="success" message="Your password has been changed. You can now sign in with it." />
        <p>
          <Link to="/sign-in">Sign in</Link>
        </p>
      </Page>
    );
  }
  if (search.error || !token) {
    return (
      <Page title="Reset your password">
        <FormAlert message={search.error ? errorSentence(search.error) : NO_TOKEN} />
        <p>
          <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      </Page>
    );
  }
  const placed = reset.error ? placeError(reset.error, ["password"]) : undefined;
  return (
    <Page title="Choose a new password">
      <form onSubmit={submit} noValidate>
        <FormAlert message={localError ?? (placed && !placed.field ? placed.message : undefined)} />
        <Field
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={placed?.field ? placed.message : undefined}
          hint={<PasswordRules password={password} />}
        />
        <SubmitButton pending={reset.isPending} pendingText="Saving…">
          Set new password
        </SubmitButton>
      </form>
    </Page>
  );
}
