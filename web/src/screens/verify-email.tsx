import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { api, errorMessage } from "../api";
import { FormAlert, Page } from "../components";
import { errorSentence } from "../error-codes";
import { sessionQuery, useSession } from "../session";

/**
 * Where the verification mail's link lands (the gateway verifies, then redirects here, with ?error= when it
 * could not); a link that carries the token to this page is verified from here, the token taken out of the
 * address at once (the history entry replaced) and kept in this screen's state only, as the reset screen does.
 */
export function VerifyEmail() {
  const search = useSearch({ strict: false }) as { token?: string; error?: string };
  const navigate = useNavigate();
  const [token] = useState(search.token);
  useEffect(() => {
    if (search.token) void navigate({ to: "/verify-email", search: search.error ? { error: search.error } : {}, replace: true });
  }, [search.token, search.error, navigate]);
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
  let body;
  if (search.error) body = <FormAlert message={errorSentence(search.error)} />;
  else if (token && verify.isPending) body = <p role="status">Verifying your email address…</p>;
  else if (verify.isError) body = <FormAlert message={errorMessage(verify.error)} />;
  else if (session.data && !session.data.user.emailVerified) body = <FormAlert message="Your email address is not verified yet. Open the link we mailed you." />;
  else body = <FormAlert tone="success" message="Your email address is verified." />;
  return (
    <Page title="Email verification">
      {body}
      <p>{session.data ? <Link to="/account">Go to your account</Link> : <Link to="/sign-in">Sign in</Link>}</p>
    </Page>
  );
}
