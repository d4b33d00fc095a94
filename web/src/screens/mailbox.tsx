import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, api, errorMessage } from "../api";
import { Field, FormAlert, Page } from "../components";
import { useLanguage, useT } from "../i18n";

/** The development mail outbox (GET /dev/outbox): read the platform's mail with no mail server. */
export function Mailbox() {
  const t = useT();
  const language = useLanguage();
  const [filter, setFilter] = useState("");
  const [to, setTo] = useState("");
  const outbox = useQuery({ queryKey: ["outbox", to], queryFn: () => api.devOutbox(to || undefined), refetchInterval: 3_000, retry: false });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTo(filter.trim());
  };
  const unavailable = outbox.error instanceof ApiError && outbox.error.status === 404;
  return (
    <Page title={t("mailbox.title")} narrow={false}>
      <p>{t("mailbox.intro")}</p>
      {unavailable ? <FormAlert message={t("mailbox.unavailable")} /> : outbox.error ? <FormAlert message={errorMessage(outbox.error)} /> : null}
      {/* biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the landmark every browser maps; <search> is recent. */}
      <form onSubmit={submit} className="inline-form" role="search">
        <Field label={t("mailbox.recipient")} name="to" type="email" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <button type="submit">{t("mailbox.filter")}</button>
      </form>
      {outbox.data && outbox.data.messages.length === 0 && <p role="status">{to ? t("mailbox.emptyTo", { to }) : t("mailbox.empty")}</p>}
      <ul className="cards">
        {outbox.data?.messages.map((mail) => (
          <li key={mail.id} className="card mail">
            <h2>{mail.subject}</h2>
            <p className="muted">
              {t("mailbox.to", { to: mail.to })} · <time dateTime={mail.createdAt}>{new Date(mail.createdAt).toLocaleString(language)}</time>
            </p>
            <pre className="mail-text">{mail.text}</pre>
            {mail.links.length > 0 && (
              <ul aria-label={t("mailbox.links", { subject: mail.subject })}>
                {mail.links.map((link) => (
                  <li key={link}>
                    <a href={link}>{link}</a>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </Page>
  );
}
