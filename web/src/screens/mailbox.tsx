import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, api, errorMessage } from "../api";
import { Field, FormAlert, Page } from "../components";

/** The development mail outbox (GET /dev/outbox): read the platform's mail with no mail server. */
export function Mailbox() {
  const [filter, setFilter] = useState("");
  const [to, setTo] = useState("");
  const outbox = useQuery({ queryKey: ["outbox", to], queryFn: () => api.devOutbox(to || undefined), refetchInterval: 3_000, retry: false });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTo(filter.trim());
  };
  const unavailable = outbox.error instanceof ApiError && outbox.error.status === 404;
  return (
    <Page title="Development mailbox" narrow={false}>
      <p>Mail the platform sent while it runs with the development outbox (no mail server). Newest first; refreshed every few seconds.</p>
      {unavailable ? (
        <FormAlert message="The development mailbox is not available: the platform sends its mail through a mail server." />
      ) : outbox.error ? (
        <FormAlert message={errorMessage(outbox.error)} />
      ) : null}
      {/* biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the landmark every browser maps; <search> is recent. */}
      <form onSubmit={submit} className="inline-form" role="search">
        <Field label="Recipient" name="to" type="email" value={filter} onChange={(e) => setFilter(e.target.value)} />
        <button type="submit">Filter</button>
      </form>
      {outbox.data && outbox.data.messages.length === 0 && <p role="status">No mail{to ? ` to ${to}` : ""} yet.</p>}
      <ul className="cards">
        {outbox.data?.messages.map((mail) => (
          <li key={mail.id} className="card mail">
            <h2>{mail.subject}</h2>
            <p className="muted">
              To {mail.to} · <time dateTime={mail.createdAt}>{new Date(mail.createdAt).toLocaleString()}</time>
            </p>
            <pre className="mail-text">{mail.text}</pre>
            {mail.links.length > 0 && (
              <ul aria-label={`Links in "${mail.subject}"`}>
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
