import { useMutation } from "@tanstack/react-query";
import { Link, useParams, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
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
          <Field label="Email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={placed?.field ? placed.message : undefined} />
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

/** /reset-password/{token}, and /reset-password?token= or ?error= where the gateway's mail link lands. */
export function ResetPassword() {
  const params = useParams({ strict: false }) as { token?: string };
  const search = useSearch({ strict: false }) as { token?: string; error?: string };
  const token = params.token ?? search.token;
  const [password, setPassword] = useState("");
  const [localError, setLocalError] = useState<string>();
  const reset = useMutation({ mutationFn: () => api.resetPassword({ newPassword: password, token: token! }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordAcceptable(password)) return setLocalError("Choose a password that meets the rules below.");
    setLocalError(undefined);
    reset.mutate();
  };
  if (search.error || !token) {
    return (
      <Page title="Reset your password">
        <FormAlert message={errorSentence(search.error ?? "INVALID_TOKEN")} />
        <p>
          <Link to="/forgot-password">Ask for a new link</Link>
        </p>
      </Page>
    );
  }
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
