import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useSearch } from "@tanstack/react-router";
import { useEffect } from "react";
import { api, errorMessage } from "../api";
import { FormAlert, Page } from "../components";
import { errorSentence } from "../error-codes";
import { sessionQuery, useSession } from "../session";

/**
 * Where the verification mail's link lands (the gateway verifies, then redirects here, with ?error= when it
 * could not); a link that carries the token to this page is verified from here.
 */
export function VerifyEmail() {
  const search = useSearch({ strict: false }) as { token?: string; error?: string };
  const queryClient = useQueryClient();
  const verify = useQuery({ queryKey: ["verify-email", search.token], queryFn: () => api.verifyEmail(search.token!), enabled: Boolean(search.token) && !search.error, retry: false, staleTime: Infinity });
  useEffect(() => {
    if (verify.isSuccess) void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
  }, [verify.isSuccess, queryClient]);
  const session = useSession();
  let body;
  if (search.error) body = <FormAlert message={errorSentence(search.error)} />;
  else if (search.token && verify.isPending) body = <p role="status">Verifying your email address…</p>;
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
