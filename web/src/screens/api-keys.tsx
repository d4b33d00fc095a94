/**
 * API keys (docs/http-api/api-keys.md): the account's own and an organization's, one section for both. A new
 * key is shown once with a copy button; the list shows each key's first characters, last use and expiry.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type ApiKey, ApiError, api, errorMessage } from "../api";
import { ConfirmButton, type Done, DoneNotice, Field, FormAlert, SubmitButton } from "../components";
import { useLanguage, useT } from "../i18n";
import { CopyButton } from "./organization-domains";

/** Expiry choices, in days (0: never). */
const EXPIRIES = [0, 30, 90, 365] as const;
const DAY_S = 86_400;

export const apiKeysQuery = (organizationId?: string) => ({ queryKey: ["api-keys", organizationId ?? "mine"], queryFn: () => api.apiKey.list(organizationId) });

/** Refusals that mean "not yours to manage": the organization's section is then not shown. */
const notAllowed = (error: unknown) => error instanceof ApiError && (error.code === "INSUFFICIENT_API_KEY_PERMISSIONS" || error.code === "USER_NOT_MEMBER_OF_ORGANIZATION");

export function ApiKeysSection({ organizationId }: { organizationId?: string }) {
  const t = useT();
  const queryClient = useQueryClient();
  const keys = useQuery({ ...apiKeysQuery(organizationId), retry: (count, error) => !notAllowed(error) && count < 2 });
  const [done, setDone] = useState<Done>();
  const [name, setName] = useState("");
  const [days, setDays] = useState<(typeof EXPIRIES)[number]>(90);
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: apiKeysQuery(organizationId).queryKey });
  const create = useMutation({
    mutationFn: () => api.apiKey.create({ name: name.trim(), ...(days ? { expiresIn: days * DAY_S } : {}), ...(organizationId ? { organizationId } : {}) }),
    onSuccess: async (answer) => {
      setCreated({ name: answer.name ?? t("apiKeys.unnamed"), key: answer.key });
      setName("");
      await refresh();
    },
  });
  // An organization's section waits for the list: a member whose role may not read the keys never sees it.
  if (organizationId && (notAllowed(keys.error) || keys.isPending)) return null;
  const id = organizationId ? "org-api-keys-title" : "api-keys-title";
  const title = organizationId ? t("apiKeys.organizationTitle") : t("apiKeys.title");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const failure = create.error ?? keys.error;
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p>{organizationId ? t("apiKeys.organizationIntro") : t("apiKeys.intro")}</p>
      <FormAlert message={failure ? errorMessage(failure) : undefined} cause={failure} />
      <DoneNotice done={done} onClear={() => setDone(undefined)} />
      {created && (
        <section className="notice" aria-label={t("apiKeys.createdLabel", { name: created.name })}>
          <p>{t("apiKeys.created")}</p>
          <p>
            <code data-testid="new-api-key">{created.key}</code> <CopyButton text={created.key} label={t("apiKeys.copy", { name: created.name })} />
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            {t("apiKeys.dismiss")}
          </button>
        </section>
      )}
      {keys.isPending && <p role="status">{t("account.loading")}</p>}
      {keys.data?.apiKeys.length === 0 && <p>{t("apiKeys.none")}</p>}
      <ul className="list" aria-label={title}>
        {keys.data?.apiKeys.map((key) => (
          <ApiKeyItem key={key.id} apiKey={key} onDone={setDone} refresh={refresh} />
        ))}
      </ul>
      <form onSubmit={submit} noValidate>
        <Field label={t("apiKeys.name")} name={`${id}-name`} required maxLength={32} value={name} onChange={(e) => setName(e.target.value)} />
        <label>
          {t("apiKeys.expiry")}
          <select name={`${id}-expiry`} value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof EXPIRIES)[number])}>
            {EXPIRIES.map((d) => (
              <option key={d} value={d}>
                {d ? t("apiKeys.expiryDays", { days: d }) : t("apiKeys.expiryNever")}
              </option>
            ))}
          </select>
        </label>
        <SubmitButton pending={create.isPending} pendingText={t("apiKeys.creating")}>
          {t("apiKeys.create")}
        </SubmitButton>
      </form>
    </section>
  );
}

function ApiKeyItem({ apiKey, onDone, refresh }: { apiKey: ApiKey; onDone: (done: Done) => void; refresh: () => Promise<unknown> }) {
  const t = useT();
  const language = useLanguage();
  const name = apiKey.name ?? t("apiKeys.unnamed");
  const date = (iso: string) => new Date(iso).toLocaleDateString(language);
  const revoke = async () => {
    await api.apiKey.remove(apiKey.id);
    onDone({ message: t("apiKeys.revoked") });
    await refresh();
  };
  const facts = [
    ...(apiKey.start ? [t("apiKeys.prefix", { start: `${apiKey.start}…` })] : []),
    apiKey.lastRequest ? t("apiKeys.lastUsed", { date: date(apiKey.lastRequest) }) : t("apiKeys.neverUsed"),
    apiKey.expiresAt ? t("apiKeys.expires", { date: date(apiKey.expiresAt) }) : t("apiKeys.noExpiry"),
    ...(apiKey.enabled ? [] : [t("apiKeys.disabled")]),
  ];
  return (
    <li>
      <span>
        <strong>{name}</strong>
        <br />
        <span className="muted">{facts.join(" · ")}</span>
      </span>
      <ConfirmButton
        title={t("apiKeys.revokeTitle", { name })}
        description={<p>{t("apiKeys.revokeDescription")}</p>}
        confirmLabel={t("apiKeys.revoke")}
        pendingText={t("apiKeys.revoking")}
        onConfirm={revoke}
      >
        {t("apiKeys.revoke")}
        <span className="visually-hidden"> {name}</span>
      </ConfirmButton>
    </li>
  );
}
