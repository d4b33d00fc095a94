import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api } from "../api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { useT } from "../i18n";
import { passwordAcceptable, passwordRules } from "../password-rules";
import { safeRedirect } from "../safe-redirect";
import { sessionQuery } from "../session";

export function PasswordRules({ password, id }: { password: string; id?: string }) {
  const t = useT();
  return (
    <ul className="rules" id={id} aria-live="polite">
      {passwordRules(password).map((rule) => (
        <li key={rule.id} className={rule.met ? "met" : "unmet"}>
          <span aria-hidden="true">{rule.met ? "✓" : "•"}</span> {rule.id === "min" ? t("signUp.ruleMin", { count: rule.limit }) : t("signUp.ruleMax", { count: rule.limit })}
          <span className="visually-hidden"> {rule.met ? t("signUp.ruleMet") : t("signUp.ruleUnmet")}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A refusal of the form's own checks. Each is a new object: the same words a second time are announced
 * again (FormAlert's cause).
 */
export interface LocalRefusal {
  message: string;
}

export function SignUp() {
  const t = useT();
  const search = useSearch({ strict: false }) as { redirect?: string };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: "", email: "", username: "", password: "" });
  const [checkEmail, setCheckEmail] = useState(false);
  const [localError, setLocalError] = useState<LocalRefusal>();
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
    if (!form.name.trim()) return setLocalError({ message: t("signUp.enterName") });
    if (!passwordAcceptable(form.password)) return setLocalError({ message: t("signUp.meetRules") });
    setLocalError(undefined);
    signUp.mutate();
  };
  if (checkEmail) {
    return (
      <Page title={t("signUp.checkEmailTitle")}>
        <p role="status">{t("signUp.checkEmail", { email: form.email })}</p>
        <p>
          <Link to="/sign-in">{t("signUp.signIn")}</Link>
        </p>
      </Page>
    );
  }
  const placed = signUp.error ? placeError(signUp.error, ["email", "username", "password"]) : undefined;
  const fieldError = (name: string) => (placed?.field === name ? placed.message : undefined);
  // A local refusal is always the newer: it is made on a submit that sends nothing.
  return (
    <Page title={t("signUp.title")}>
      <form onSubmit={submit} noValidate>
        <FormAlert message={localError?.message ?? (placed && !placed.field ? placed.message : undefined)} cause={localError ?? signUp.error} />
        <Field label={t("signUp.name")} name="name" autoComplete="name" required value={form.name} onChange={set("name")} />
        <Field label={t("signUp.email")} name="email" type="email" autoComplete="email" required value={form.email} onChange={set("email")} error={fieldError("email")} />
        <Field
          label={t("signUp.username")}
          name="username"
          autoComplete="username"
          value={form.username}
          onChange={set("username")}
          error={fieldError("username")}
          hint={t("signUp.usernameHint")}
        />
        <Field
          label={t("signUp.password")}
          name="password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onChange={set("password")}
          error={fieldError("password")}
          hint={<PasswordRules password={form.password} />}
        />
        <SubmitButton pending={signUp.isPending} pendingText={t("signUp.submitting")}>
          {t("signUp.submit")}
        </SubmitButton>
      </form>
      <p>
        {t("signUp.haveAccount")} <Link to="/sign-in">{t("signUp.signIn")}</Link>
      </p>
    </Page>
  );
}
