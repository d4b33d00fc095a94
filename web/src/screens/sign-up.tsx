import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api } from "../api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { passwordAcceptable, passwordRules } from "../password-rules";
import { safeRedirect } from "../safe-redirect";
import { sessionQuery } from "../session";

export function PasswordRules({ password, id }: { password: string; id?: string }) {
  return (
    <ul className="rules" id={id} aria-live="polite">
      {passwordRules(password).map((rule) => (
        <li key={rule.label} className={rule.met ? "met" : "unmet"}>
          <span aria-hidden="true">{rule.met ? "✓" : "•"}</span> {rule.label}
          <span className="visually-hidden">{rule.met ? " (met)" : " (not met yet)"}</span>
        </li>
      ))}
    </ul>
  );
}

export function SignUp() {
  const search = useSearch({ strict: false }) as { redirect?: string };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: "", email: "", username: "", password: "" });
  const [checkEmail, setCheckEmail] = useState(false);
  const [localError, setLocalError] = useState<string>();
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) => {
    setForm({ ...form, [field]: event.target.value });
    setLocalError(undefined);
  };
  const signUp = useMutation({
    mutationFn: () =>
      api.signUpEmail({
        name: form.name.trim(),
        email: form.email.trim(),
        password: form.password,
        ...(form.username.trim() ? { username: form.username.trim() } : {}),
        callbackURL: "/verify-email",
      }),
    onSuccess: async (result) => {
      if (!result.token) return setCheckEmail(true);
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      await navigate({ to: safeRedirect(search.redirect) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.name.trim()) return setLocalError("Enter your name.");
    if (!passwordAcceptable(form.password)) return setLocalError("Choose a password that meets the rules below.");
    setLocalError(undefined);
    signUp.mutate();
  };
  if (checkEmail) {
    return (
      <Page title="Check your email">
        <p role="status">
          We sent a link to <strong>{form.email}</strong>. Open it to verify your address, then <Link to="/sign-in">sign in</Link>.
        </p>
      </Page>
    );
  }
  const placed = signUp.error ? placeError(signUp.error, ["email", "username", "password"]) : undefined;
  const fieldError = (name: string) => (placed?.field === name ? placed.message : undefined);
  return (
    <Page title="Create an account">
      <form onSubmit={submit} noValidate>
        <FormAlert message={localError ?? (placed && !placed.field ? placed.message : undefined)} />
        <Field label="Name" name="name" autoComplete="name" required value={form.name} onChange={set("name")} />
        <Field label="Email" name="email" type="email" autoComplete="email" required value={form.email} onChange={set("email")} error={fieldError("email")} />
        <Field
          label="Username (optional)"
          name="username"
          autoComplete="username"
          value={form.username}
          onChange={set("username")}
          error={fieldError("username")}
          hint="Lets you sign in with a username instead of your email."
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onChange={set("password")}
          error={fieldError("password")}
          hint={<PasswordRules password={form.password} />}
        />
        <SubmitButton pending={signUp.isPending} pendingText="Creating your account…">
          Create account
        </SubmitButton>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </Page>
  );
}
