/**
 * The Domains part of an organization's settings, for its owners and admins (docs/http-api/domains.md,
 * docs/adr/0071-verified-domains.md): the claimed domains and their state, the TXT record of a pending one
 * with copy buttons and "Verify now" (its outcome said in words), auto-join with its role once verified, and
 * removal after a confirmation. The sso service decides who may (SSO_MANAGER_ROLES); a member it refuses
 * sees nothing of this part.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { ApiError, api, errorMessage, type FullOrganization, type OrganizationAccess, type OrganizationDomain } from "../api";
import { ConfirmButton, Field, FormAlert, SubmitButton } from "../components";
import { useLanguage, useT } from "../i18n";
import { roleName, type Outcome } from "./organizations";

/** The roles the sso service lets manage domains by default, and the roles auto-join may give (ADR 0071). */
const MANAGER_ROLES = ["owner", "admin"];
const AUTO_JOIN_ROLES = ["member", "admin"];

const domainsKey = (organizationId: string) => ["organization", "domains", organizationId];

export function Domains({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: Outcome }) {
  const roles = access.role.split(",").map((role) => role.trim());
  if (!roles.some((role) => role === access.ownerRole || MANAGER_ROLES.includes(role))) return null;
  return <DomainList organization={organization} outcome={outcome} />;
}

function DomainList({ organization, outcome }: { organization: FullOrganization; outcome: Outcome }) {
  const t = useT();
  const domains = useQuery({ queryKey: domainsKey(organization.id), queryFn: () => api.organization.listDomains(organization.id), retry: false });
  // A role the sso service does not count as a manager (SSO_MANAGER_ROLES narrowed): nothing to show.
  if (domains.error instanceof ApiError && domains.error.status === 403) return null;
  return (
    <section aria-labelledby="org-domains-title">
      <h3 id="org-domains-title">{t("organizations.domains.title")}</h3>
      <p>{t("organizations.domains.intro")}</p>
      {domains.error && <FormAlert message={errorMessage(domains.error)} />}
      {domains.data?.length === 0 && <p>{t("organizations.domains.none")}</p>}
      <ul className="list domains" aria-label={t("organizations.domains.title")}>
        {domains.data?.map((domain) => (
          <DomainRow key={domain.id} organization={organization} domain={domain} outcome={outcome} />
        ))}
      </ul>
      <AddDomain organization={organization} />
    </section>
  );
}

function AddDomain({ organization }: { organization: FullOrganization }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const add = useMutation({
    mutationFn: () => api.organization.claimDomain(organization.id, name.trim()),
    onSuccess: async () => {
      setName("");
      await queryClient.invalidateQueries({ queryKey: domainsKey(organization.id) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <section aria-labelledby="org-domains-add-title">
      <h4 id="org-domains-add-title">{t("organizations.domains.addTitle")}</h4>
      <form onSubmit={submit} noValidate>
        <FormAlert key={add.submittedAt} message={add.error ? errorMessage(add.error) : undefined} />
        {add.isSuccess && <FormAlert tone="success" message={t("organizations.domains.added", { domain: add.data.domain })} />}
        <Field
          label={t("organizations.domains.addLabel")}
          name="domain"
          required
          autoComplete="off"
          spellCheck={false}
          maxLength={253}
          value={name}
          onChange={(e) => setName(e.target.value)}
          hint={t("organizations.domains.addHint")}
        />
        <SubmitButton pending={add.isPending} pendingText={t("organizations.domains.adding")}>
          {t("organizations.domains.add")}
        </SubmitButton>
      </form>
    </section>
  );
}

/** "Verify now"'s outcome in words: DOMAIN_VERIFICATION_FAILED's reason says what to do next. */
function verifyFailure(error: unknown, t: ReturnType<typeof useT>): string {
  if (error instanceof ApiError && error.code === "DOMAIN_VERIFICATION_FAILED") {
    if (error.details.reason === "absent") return t("organizations.domains.notFound");
    if (error.details.reason === "mismatch") return t("organizations.domains.mismatch");
    return t("organizations.domains.lookupFailed");
  }
  return errorMessage(error);
}

function DomainRow({ organization, domain, outcome }: { organization: FullOrganization; domain: OrganizationDomain; outcome: Outcome }) {
  const t = useT();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: domainsKey(organization.id) });
  const dates = new Intl.DateTimeFormat(language, { dateStyle: "medium" });
  const name = domain.domain;
  const verify = useMutation({
    mutationFn: () => api.organization.verifyDomain(organization.id, domain.id),
    onSettled: refresh,
  });
  const remove = async () => {
    await api.organization.removeDomain(organization.id, domain.id);
    outcome.done({ message: t("organizations.domains.removed", { domain: name }) });
    await refresh();
  };
  const details =
    domain.status === "verified" && domain.verifiedAt
      ? t("organizations.domains.verifiedOn", { date: dates.format(new Date(domain.verifiedAt)) })
      : domain.status === "pending"
        ? t("organizations.domains.verifyBy", { date: dates.format(new Date(domain.expiresAt)) })
        : t("organizations.domains.expiredOn", { date: dates.format(new Date(domain.expiresAt)) });
  return (
    <li className="domain">
      <div>
        <strong>{name}</strong>
        <span className={`badge badge-${domain.status}`}>{t(`organizations.domains.status.${domain.status}`)}</span> <span className="muted">{details}</span>
      </div>
      {domain.status === "pending" && <TxtRecord domain={domain} />}
      <FormAlert key={verify.submittedAt} cause={verify.submittedAt} message={verify.error ? verifyFailure(verify.error, t) : undefined} />
      {verify.isSuccess && <FormAlert tone="success" message={t("organizations.domains.verified", { domain: name })} />}
      {domain.status === "verified" && <AutoJoin organization={organization} domain={domain} />}
      <div className="row">
        {domain.status === "pending" && (
          <button type="button" className="primary" onClick={() => verify.mutate()} disabled={verify.isPending} aria-busy={verify.isPending || undefined}>
            <span aria-hidden="true">{verify.isPending ? t("organizations.domains.verifying") : t("organizations.domains.verify")}</span>
            <span className="visually-hidden">{verify.isPending ? t("organizations.domains.verifying") : t("organizations.domains.verifyName", { domain: name })}</span>
          </button>
        )}
        <ConfirmButton
          title={t("organizations.domains.removeTitle", { domain: name })}
          description={t("organizations.domains.removeDescription", { domain: name })}
          confirmLabel={t("organizations.domains.removeConfirm")}
          pendingText={t("organizations.domains.removing")}
          onConfirm={remove}
        >
          <span aria-hidden="true">{t("organizations.domains.remove")}</span>
          <span className="visually-hidden">{t("organizations.domains.removeName", { domain: name })}</span>
        </ConfirmButton>
      </div>
    </li>
  );
}

/** The record to publish, each part with its copy button. */
function TxtRecord({ domain }: { domain: OrganizationDomain }) {
  const t = useT();
  return (
    <div className="txt-record">
      <p>{t("organizations.domains.publish", { domain: domain.domain })}</p>
      <dl>
        <dt>{t("organizations.domains.recordName")}</dt>
        <dd>
          <code>{domain.record.name}</code> <CopyButton text={domain.record.name} label={t("organizations.domains.copyName", { domain: domain.domain })} />
        </dd>
        <dt>{t("organizations.domains.recordType")}</dt>
        <dd>
          <code>{domain.record.type}</code>
        </dd>
        <dt>{t("organizations.domains.recordValue")}</dt>
        <dd>
          <code>{domain.record.value}</code> <CopyButton text={domain.record.value} label={t("organizations.domains.copyValue", { domain: domain.domain })} />
        </dd>
      </dl>
    </div>
  );
}

/** Copies a value, and says whether it did (also the API keys sections'). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const t = useT();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = () => {
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setState("failed");
      return;
    }
    void clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <>
      <button type="button" className="link" onClick={copy} aria-label={label}>
        {t("organizations.domains.copy")}
      </button>
      <span role="status" className="muted">
        {state === "copied" ? t("organizations.domains.copied") : state === "failed" ? t("organizations.domains.copyFailed") : ""}
      </span>
    </>
  );
}

/** Auto-join of a verified domain: the switch and the role new users get (changed at once while on). */
function AutoJoin({ organization, domain }: { organization: FullOrganization; domain: OrganizationDomain }) {
  const t = useT();
  const queryClient = useQueryClient();
  const switchId = useId();
  const roleId = useId();
  const [role, setRole] = useState(domain.autoJoinRole ?? "member");
  const set = useMutation({
    mutationFn: (next: string | null) => api.organization.setDomainAutoJoin(organization.id, domain.id, next),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainsKey(organization.id) }),
  });
  // The change asked for while it runs, then its answer until the list is read again.
  const on = set.isPending ? set.variables !== null : (set.isSuccess ? set.data.autoJoinRole : domain.autoJoinRole) !== null;
  const said =
    set.isSuccess && set.data
      ? set.data.autoJoinRole
        ? t("organizations.domains.autoJoinOn", { domain: domain.domain, role: roleName(set.data.autoJoinRole) })
        : t("organizations.domains.autoJoinOff", { domain: domain.domain })
      : undefined;
  return (
    <div className="auto-join">
      <div className="check">
        <input id={switchId} type="checkbox" role="switch" aria-checked={on} checked={on} disabled={set.isPending} onChange={(e) => set.mutate(e.target.checked ? role : null)} />
        <label htmlFor={switchId}>{t("organizations.domains.autoJoin", { domain: domain.domain })}</label>
      </div>
      <div className="field">
        <label htmlFor={roleId}>{t("organizations.domains.autoJoinRole", { domain: domain.domain })}</label>
        <select
          id={roleId}
          value={role}
          disabled={set.isPending}
          onChange={(e) => {
            setRole(e.target.value);
            if (on) set.mutate(e.target.value);
          }}
        >
          {AUTO_JOIN_ROLES.map((one) => (
            <option key={one} value={one}>
              {roleName(one)}
            </option>
          ))}
        </select>
      </div>
      <FormAlert key={set.submittedAt} message={set.error ? errorMessage(set.error) : undefined} />
      {said && <p role="status">{said}</p>}
    </div>
  );
}
