import { Link, useSearch } from "@tanstack/react-router";
import { Page } from "../components";
import { errorSentence } from "../error-codes";
import { useT } from "../i18n";

export function ErrorPage() {
  const t = useT();
  const search = useSearch({ strict: false }) as { error?: string };
  const code = typeof search.error === "string" && search.error ? search.error.slice(0, 200) : "unknown_error";
  return (
    <Page title={t("common.errorPage.title")}>
      <p role="alert">{errorSentence(code)}</p>
      <p>
        {t("common.errorPage.code")} <code>{code}</code>
      </p>
      <p>
        <Link to="/">{t("common.errorPage.back")}</Link>
      </p>
    </Page>
  );
}

export function NotFound() {
  const t = useT();
  return (
    <Page title={t("common.notFound.title")}>
      <p>{t("common.notFound.text")}</p>
      <p>
        <Link to="/">{t("common.errorPage.back")}</Link>
      </p>
    </Page>
  );
}
