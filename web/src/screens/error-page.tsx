import { Link, useSearch } from "@tanstack/react-router";
import { Page } from "../components";
import { errorSentence } from "../error-codes";

export function ErrorPage() {
  const search = useSearch({ strict: false }) as { error?: string };
  const code = typeof search.error === "string" && search.error ? search.error.slice(0, 200) : "unknown_error";
  return (
    <Page title="Something went wrong">
      <p role="alert">{errorSentence(code)}</p>
      <p>
        Error code: <code>{code}</code>
      </p>
      <p>
        <Link to="/">Back to the application</Link>
      </p>
    </Page>
  );
}

export function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Back to the application</Link>
      </p>
    </Page>
  );
}
