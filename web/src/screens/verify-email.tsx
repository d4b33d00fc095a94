import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { type ReactNode, useEffect, useState } from "react";
import { api, errorMessage } from "../api";
import { FormAlert, Page } from "../components";
import { errorSentence } from "../error-codes";
import { useT } from "../i18n";
import { sessionQuery, useSession } from "../session";

/** The callback the account page gives a change of address: both of its links land here, marked as a change. */
export const EMAIL_CHANGE_CALLBACK = "/verify-email?change=email";

/**
 * Where the verification mail's link lands (the gateway verifies, then redirects here, with ?error= when it
 * could not); a link that carries the token to this page is verified from here, the token taken out of the
 * address at once (the history entry replaced) and kept in this screen's state only, as the reset screen does.
 *
 * With ?change=email it is the end of a step of an email change: after the approval from the old address
 * the account is on the new, unverified address, whose link is on its way (a status, not an error); after
 * that link, the address is changed and verified.
 */
export function VerifyEmail() {
  const t = useT();
  const search = useSearch({ strict: false }) as { token?: string; error?: string; change?: unknown };
  const navigate = useNavigate();
  const [token] = useState(search.token);
  const emailChange = search.change === "email";
  useEffect(() => {
    // Only the token goes: ?error= and ?change= stay, for a reload to say the same.
    const kept = { ...(search.error ? { error: search.error } : {}), ...(emailChange ? { change: "email" } : {}) };
    if (search.token) void navigate({ to: "/verify-email", search: kept, replace: true });
  }, [search.token, search.error, emailChange, navigate]);
  const queryClient = useQueryClient();
  const verify = useQuery({
    queryKey: ["verify-email", token],
    queryFn: () => api.verifyEmail(token!),
    enabled: Boolean(token) && !search.error,
    retry: false,
    staleTime: Infinity,
  });
  useEffect(() => {
    if (verify.isSuccess) void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
  }, [verify.isSuccess, queryClient]);
  const session = useSession();
  const user = session.data?.user;
  let title = t("verifyEmail.title");
  let body: ReactNode;
  if (search.error) body = <FormAlert message={errorSentence(search.error)} />;
  else if (token && verify.isPending) body = <p role="status">{t("verifyEmail.verifying")}</p>;
  else if (verify.isError) body = <FormAlert message={errorMessage(verify.error)} cause={verify.error} />;
  // Which step of a change this is depends on the user's address: wait for it rather than say the wrong one.
  else if (session.isPending) body = <p role="status">{t("verifyEmail.loading")}</p>;
  else if (emailChange && user && !user.emailVerified) {
    title = t("verifyEmail.checkNewTitle");
    body = <FormAlert tone="success" message={t("verifyEmail.checkNew", { email: user.email })} />;
  } else if (emailChange) {
    title = t("verifyEmail.changedTitle");
    body = <FormAlert tone="success" message={t("verifyEmail.changed")} />;
  } else if (user && !user.emailVerified) body = <FormAlert message={t("verifyEmail.notYet")} />;
  else body = <FormAlert tone="success" message={t("verifyEmail.verified")} />;
  return (
    <Page title={title}>
      {body}
      <p>{session.data ? <Link to="/account">{t("verifyEmail.toAccount")}</Link> : <Link to="/sign-in">{t("verifyEmail.signIn")}</Link>}</p>
    </Page>
  );
}
