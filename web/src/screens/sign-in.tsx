import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api, needsSecondFactor } from "../api";
import { Field, FormAlert, Page, placeError, SubmitButton } from "../components";
import { safeRedirect } from "../safe-redirect";
import { sessionQuery } from "../session";
import { SocialButtons } from "../social";

export function SignIn() {
  const search = useSearch({ strict: false }) as { redirect?: string };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [identifier, setIdentifier] = useState("");
  const [password, setPassword] = useState("");
  const [rememberMe, setRememberMe] = useState(true);
  const signIn = useMutation({
    mutationFn: () =>
      identifier.includes("@") ? api.signInEmail({ email: identifier.trim(), password, rememberMe }) : api.signInUsername({ username: identifier.trim(), password, rememberMe }),
    onSuccess: async (result) => {
      if (needsSecondFactor(result)) {
        const methods = (result.twoFactorMethods ?? ["totp", "otp"]).join(",");
        return navigate({ to: "/two-factor", search: { methods, ...(search.redirect ? { redirect: search.redirect } : {}) } });
      }
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
      await navigate({ to: safeRedirect(search.redirect) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const error = signIn.error ? placeError(signIn.error, []) : undefined;
  return (
    <Page title="Sign in">
      <form onSubmit={submit} noValidate>
        <FormAlert message={error?.message} />
        <Field label="Email or username" name="identifier" autoComplete="username" required value={identifier} onChange={(e) => setIdentifier(e.target.value)} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <div className="check">
          <input id="remember-me" type="checkbox" checked={rememberMe} onChange={(e) => setRememberMe(e.target.checked)} />
          <label htmlFor="remember-me">Remember me on this device</label>
        </div>
        <SubmitButton pending={signIn.isPending} pendingText="Signing in…">
          Sign in
        </SubmitButton>
      </form>
      <SocialButtons mode="sign-in" callbackURL={safeRedirect(search.redirect)} />
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        New here?{" "}
        <Link to="/sign-up" search={search.redirect ? { redirect: search.redirect } : {}}>
          Create an account
        </Link>
      </p>
    </Page>
  );
}
