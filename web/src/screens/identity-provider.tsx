/**
 * The Identity provider part of an organization's settings, for its owners and admins (docs/sso.md#the-
 * identity-provider-screen): the organization's providers (GET /sso/providers), each with the values its
 * IdP's admin pastes there (copy buttons), a connection test (POST /sso/test-provider), an on/off switch,
 * an edit form and a deletion asked for by typing the provider's id; and the form that registers an OpenID
 * Connect or SAML 2.0 provider.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { api, errorMessage, type FullOrganization, type OrganizationAccess, type ProviderCheck, type SsoProvider, type SsoProviderInput } from "../api";
import { ConfirmButton, Field, FormAlert, SubmitButton } from "../components";
import { translateIfKnown, useT } from "../i18n";
import { type Outcome, roleName } from "./organizations";

type Protocol = "oidc" | "saml";
type SamlSource = "xml" | "url" | "manual";

/** Whether the member may manage the organization's providers: an owner or admin (the sso service decides; SSO_MANAGER_ROLES). */
export function mayManageProviders(access: OrganizationAccess): boolean {
  return access.role.split(",").some((one) => one.trim() === access.ownerRole || one.trim() === "admin");
}

/** The entity ID a pasted metadata document names, read in the browser (the service reads it again). */
function entityIdOf(xml: string): string | undefined {
  try {
    const document = new DOMParser().parseFromString(xml, "application/xml");
    return document.documentElement.getAttribute("entityID") ?? undefined;
  } catch {
    return undefined;
  }
}

const isHttpUrl = (value: string | undefined) => !!value && URL.canParse(value) && ["https:", "http:"].includes(new URL(value).protocol);

export function IdentityProvider({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: Outcome }) {
  const t = useT();
  const queryClient = useQueryClient();
  const queryKey = ["sso-providers", organization.id];
  const providers = useQuery({ queryKey, queryFn: () => api.sso.providers(organization.id) });
  const changed = () => queryClient.invalidateQueries({ queryKey });
  const [registered, setRegistered] = useState<string>();
  // A change to a provider says what it did at the top of the page: the registration's note has served.
  const changedByItem = () => {
    setRegistered(undefined);
    return changed();
  };
  return (
    <section aria-labelledby="identity-provider-title">
      <h3 id="identity-provider-title">{t("identityProvider.title")}</h3>
      <p>{t("identityProvider.intro")}</p>
      {providers.error && <FormAlert message={errorMessage(providers.error)} />}
      {registered && <FormAlert tone="success" message={t("identityProvider.register.registered", { provider: registered })} />}
      {providers.data?.length === 0 && <p>{t("identityProvider.none")}</p>}
      <ul className="provider-list" aria-label={t("identityProvider.listLabel")}>
        {providers.data?.map((provider) => (
          // Keyed by id alone: a change (the switch) keeps the reader's focus and the last test's checks.
          <ProviderItem key={provider.providerId} provider={provider} access={access} outcome={outcome} changed={changedByItem} />
        ))}
      </ul>
      <RegisterProvider
        organization={organization}
        access={access}
        onRegistered={async (provider) => {
          outcome.started();
          setRegistered(provider.providerId);
          await changed();
        }}
      />
    </section>
  );
}

/** A value the IdP's admin pastes, with its copy button. */
function PasteValue({ label, value }: { label: string; value: string }) {
  const t = useT();
  const [said, setSaid] = useState<string>();
  const copy = () =>
    void navigator.clipboard.writeText(value).then(
      () => setSaid(t("identityProvider.copied", { label })),
      () => setSaid(t("identityProvider.copyFailed")),
    );
  return (
    <div className="paste-value">
      <dt>{label}</dt>
      <dd>
        <code>{value}</code>
        <button type="button" onClick={copy}>
          <span aria-hidden="true">{t("identityProvider.copy")}</span>
          <span className="visually-hidden">{t("identityProvider.copyValue", { label })}</span>
        </button>
        <span role="status">{said}</span>
      </dd>
    </div>
  );
}

function ProviderItem({ provider, access, outcome, changed }: { provider: SsoProvider; access: OrganizationAccess; outcome: Outcome; changed: () => Promise<unknown> }) {
  const t = useT();
  const switchId = useId();
  const name = provider.providerId;
  const [editing, setEditing] = useState(false);
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.sso.update({ providerId: name, enabled }),
    onMutate: outcome.started,
    onSuccess: async (updated) => {
      outcome.done({ message: updated.enabled ? t("identityProvider.enabledOn", { provider: name }) : t("identityProvider.enabledOff", { provider: name }) });
      await changed();
    },
    onError: outcome.refused,
  });
  const test = useMutation({ mutationFn: () => api.sso.test(name) });
  const remove = async () => {
    await api.sso.remove(name);
    outcome.done({ message: t("identityProvider.deleted", { provider: name }) });
    await changed();
  };
  const saml = provider.samlConfig;
  return (
    <li className="provider">
      <h4>
        {name} <span className="badge">{provider.type === "saml" ? t("identityProvider.saml") : t("identityProvider.oidc")}</span>
      </h4>
      <p className="muted">
        {provider.domainVerified ? t("identityProvider.domainVerified", { domain: provider.domain }) : t("identityProvider.domainUnverified", { domain: provider.domain })}
        {" · "}
        {t("identityProvider.defaultRoleIs", { role: roleName(provider.defaultRole) })}
      </p>
      <p className="muted provider-issuer">{provider.issuer}</p>
      <div className="check">
        <input
          id={switchId}
          type="checkbox"
          role="switch"
          aria-checked={provider.enabled}
          checked={provider.enabled}
          // Not disabled while saving: a disabled control drops the keyboard focus.
          aria-busy={toggle.isPending || undefined}
          onChange={(e) => {
            if (!toggle.isPending) toggle.mutate(e.target.checked);
          }}
        />
        <label htmlFor={switchId}>{t("identityProvider.enabled", { provider: name })}</label>
      </div>
      <h5>{t("identityProvider.pasteTitle")}</h5>
      <dl className="paste-values">
        {saml ? (
          <>
            <PasteValue label={t("identityProvider.spEntityId")} value={saml.spEntityId} />
            <PasteValue label={t("identityProvider.acsUrl")} value={saml.acsUrl} />
            <PasteValue label={t("identityProvider.spMetadataUrl")} value={saml.spMetadataUrl} />
          </>
        ) : (
          <PasteValue label={t("identityProvider.redirectUri")} value={provider.redirectURI} />
        )}
      </dl>
      <div className="row">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending} aria-busy={test.isPending || undefined}>
          <span aria-hidden="true">{test.isPending ? t("identityProvider.testing") : t("identityProvider.test")}</span>
          <span className="visually-hidden">{test.isPending ? t("identityProvider.testing") : t("identityProvider.testOf", { provider: name })}</span>
        </button>
        <button type="button" onClick={() => setEditing((open) => !open)} aria-expanded={editing}>
          <span aria-hidden="true">{t("identityProvider.edit")}</span>
          <span className="visually-hidden">{t("identityProvider.editOf", { provider: name })}</span>
        </button>
        <ConfirmButton
          title={t("identityProvider.deleteTitle", { provider: name })}
          description={t("identityProvider.deleteDescription")}
          confirmLabel={t("identityProvider.deleteConfirm")}
          pendingText={t("identityProvider.deleting")}
          onConfirm={remove}
          typed={{ label: t("identityProvider.deleteTyped", { provider: name }), value: name }}
        >
          <span aria-hidden="true">{t("identityProvider.delete")}</span>
          <span className="visually-hidden">{t("identityProvider.deleteOf", { provider: name })}</span>
        </ConfirmButton>
      </div>
      {test.error && <FormAlert message={errorMessage(test.error)} />}
      {test.data && <Checks provider={name} ok={test.data.ok} checks={test.data.checks} />}
      {editing && (
        <EditProvider
          provider={provider}
          access={access}
          onDone={async () => {
            setEditing(false);
            outcome.done({ message: t("identityProvider.saved", { provider: name }) });
            await changed();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
    </li>
  );
}

function Checks({ provider, ok, checks }: { provider: string; ok: boolean; checks: ProviderCheck[] }) {
  const t = useT();
  return (
    <div role="status" className="provider-checks">
      <p className={ok ? "check-ok" : "check-failed"}>{ok ? t("identityProvider.testPassed") : t("identityProvider.testFailed")}</p>
      <ul className="list" aria-label={t("identityProvider.checksOf", { provider })}>
        {checks.map((check, index) => (
          // A SAML provider has one certificate check per certificate: the index tells them apart.
          // biome-ignore lint/suspicious/noArrayIndexKey: the answer's order is the checks' identity.
          <li key={index}>
            <span>
              <strong>{translateIfKnown(`identityProvider.checks.${check.name}`) ?? check.name}</strong>: {check.ok ? t("identityProvider.passed") : t("identityProvider.failed")}
            </span>
            <span className="muted check-detail">{check.detail}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The roles a provider may hand out: member, and those the reader may give. */
function RoleSelect({ access, value, onChange }: { access: OrganizationAccess; value: string; onChange: (role: string) => void }) {
  const t = useT();
  const id = useId();
  const roles = [...new Set(["member", ...access.assignableRoles, value])];
  return (
    <div className="field">
      <label htmlFor={id}>{t("identityProvider.register.defaultRole")}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {roles.map((one) => (
          <option key={one} value={one}>
            {roleName(one)}
          </option>
        ))}
      </select>
    </div>
  );
}

function TextArea({ label, name, value, onChange, required }: { label: string; name: string; value: string; onChange: (value: string) => void; required?: boolean }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} rows={5} required={required} spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

function Choices<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: string;
  name: string;
  value: T;
  options: Array<[T, string]>;
  onChange: (value: T) => void;
}) {
  const id = useId();
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {options.map(([option, label]) => (
        <div className="check" key={option}>
          <input type="radio" id={`${id}-${option}`} name={`${name}-${id}`} checked={value === option} onChange={() => onChange(option)} />
          <label htmlFor={`${id}-${option}`}>{label}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** The SAML fields of the registration and edit forms: metadata XML, its URL, or the settings by hand. */
interface SamlFields {
  source: SamlSource;
  xml: string;
  url: string;
  entryPoint: string;
  entityId: string;
  certificate: string;
}

const NO_SAML: SamlFields = { source: "xml", xml: "", url: "", entryPoint: "", entityId: "", certificate: "" };

function samlConfigOf(fields: SamlFields): NonNullable<SsoProviderInput["samlConfig"]> | undefined {
  if (fields.source === "xml") return fields.xml.trim() ? { idpMetadata: { metadata: fields.xml.trim() } } : undefined;
  if (fields.source === "url") return fields.url.trim() ? { metadataUrl: fields.url.trim() } : undefined;
  if (!fields.entryPoint.trim() && !fields.certificate.trim() && !fields.entityId.trim()) return undefined;
  return {
    ...(fields.entryPoint.trim() ? { entryPoint: fields.entryPoint.trim() } : {}),
    ...(fields.certificate.trim() ? { cert: fields.certificate.trim() } : {}),
    ...(fields.entityId.trim() ? { idpMetadata: { entityID: fields.entityId.trim() } } : {}),
  };
}

/** The SAML provider's issuer: its IdP entity ID when that is a URL, else the address the settings came from. */
function samlIssuerOf(fields: SamlFields): string {
  const entityId = fields.source === "xml" ? entityIdOf(fields.xml) : fields.entityId.trim();
  if (isHttpUrl(entityId)) return entityId!;
  return (fields.source === "url" ? fields.url : fields.entryPoint).trim();
}

function SamlInputs({ fields, onChange, required }: { fields: SamlFields; onChange: (next: SamlFields) => void; required: boolean }) {
  const t = useT();
  const set = (key: keyof SamlFields) => (value: string) => onChange({ ...fields, [key]: value });
  return (
    <>
      <Choices<SamlSource>
        legend={t("identityProvider.register.samlSource")}
        name="samlSource"
        value={fields.source}
        onChange={(source) => onChange({ ...fields, source })}
        options={[
          ["xml", t("identityProvider.register.sourceXml")],
          ["url", t("identityProvider.register.sourceUrl")],
          ["manual", t("identityProvider.register.sourceManual")],
        ]}
      />
      {fields.source === "xml" && <TextArea label={t("identityProvider.register.metadataXml")} name="metadataXml" required={required} value={fields.xml} onChange={set("xml")} />}
      {fields.source === "url" && (
        <Field
          label={t("identityProvider.register.metadataUrl")}
          name="metadataUrl"
          type="url"
          required={required}
          value={fields.url}
          onChange={(e) => set("url")(e.target.value)}
        />
      )}
      {fields.source === "manual" && (
        <>
          <Field
            label={t("identityProvider.register.entryPoint")}
            name="entryPoint"
            type="url"
            required={required}
            value={fields.entryPoint}
            onChange={(e) => set("entryPoint")(e.target.value)}
          />
          <Field label={t("identityProvider.register.entityId")} name="entityId" required={required} value={fields.entityId} onChange={(e) => set("entityId")(e.target.value)} />
          <TextArea label={t("identityProvider.register.certificate")} name="certificate" required={required} value={fields.certificate} onChange={set("certificate")} />
        </>
      )}
    </>
  );
}

function RegisterProvider({
  organization,
  access,
  onRegistered,
}: {
  organization: FullOrganization;
  access: OrganizationAccess;
  onRegistered: (provider: SsoProvider) => Promise<void>;
}) {
  const t = useT();
  const [protocol, setProtocol] = useState<Protocol>("oidc");
  const [providerId, setProviderId] = useState("");
  const [domain, setDomain] = useState("");
  const [defaultRole, setDefaultRole] = useState("member");
  const [issuer, setIssuer] = useState("");
  const [discoveryEndpoint, setDiscoveryEndpoint] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [pkce, setPkce] = useState(true);
  const [saml, setSaml] = useState<SamlFields>(NO_SAML);
  const register = useMutation({
    mutationFn: async () => {
      // Registered off: the admin pastes our values into their IdP and tests the connection before anyone is sent there.
      const common = { providerId: providerId.trim(), domain: domain.trim(), organizationId: organization.id, defaultRole, enabled: false };
      if (protocol === "oidc") {
        return api.sso.register({
          ...common,
          issuer: issuer.trim(),
          oidcConfig: { clientId: clientId.trim(), clientSecret, pkce, ...(discoveryEndpoint.trim() ? { discoveryEndpoint: discoveryEndpoint.trim() } : {}) },
        });
      }
      const created = await api.sso.register({ ...common, issuer: samlIssuerOf(saml), samlConfig: samlConfigOf(saml) ?? {} });
      // Metadata fetched by URL names the IdP's entity ID only once read: the provider's issuer follows it.
      const entityId = created.samlConfig?.idpEntityId;
      return entityId && entityId !== created.issuer && isHttpUrl(entityId) ? api.sso.update({ providerId: created.providerId, issuer: entityId }) : created;
    },
    onSuccess: async (provider) => {
      setProviderId("");
      setDomain("");
      setIssuer("");
      setDiscoveryEndpoint("");
      setClientId("");
      setClientSecret("");
      setPkce(true);
      setSaml(NO_SAML);
      await onRegistered(provider);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate();
  };
  return (
    <>
      <h4>{t("identityProvider.register.title")}</h4>
      <form onSubmit={submit} noValidate>
        <FormAlert key={register.submittedAt} message={register.error ? errorMessage(register.error) : undefined} cause={register.error} />
        <Choices<Protocol>
          legend={t("identityProvider.register.type")}
          name="protocol"
          value={protocol}
          onChange={setProtocol}
          options={[
            ["oidc", t("identityProvider.oidc")],
            ["saml", t("identityProvider.saml")],
          ]}
        />
        <Field
          label={t("identityProvider.register.providerId")}
          name="providerId"
          required
          maxLength={64}
          pattern="[A-Za-z0-9_\-]+"
          value={providerId}
          onChange={(e) => setProviderId(e.target.value)}
          hint={t("identityProvider.register.providerIdHint")}
        />
        <Field
          label={t("identityProvider.register.domain")}
          name="domain"
          required
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          hint={t("identityProvider.register.domainHint")}
        />
        <RoleSelect access={access} value={defaultRole} onChange={setDefaultRole} />
        {protocol === "oidc" ? (
          <OidcInputs
            issuer={issuer}
            setIssuer={setIssuer}
            discoveryEndpoint={discoveryEndpoint}
            setDiscoveryEndpoint={setDiscoveryEndpoint}
            clientId={clientId}
            setClientId={setClientId}
            clientSecret={clientSecret}
            setClientSecret={setClientSecret}
            secretLabel={t("identityProvider.register.clientSecret")}
            pkce={pkce}
            setPkce={setPkce}
            required
          />
        ) : (
          <SamlInputs fields={saml} onChange={setSaml} required />
        )}
        <SubmitButton pending={register.isPending} pendingText={t("identityProvider.register.submitting")}>
          {t("identityProvider.register.submit")}
        </SubmitButton>
      </form>
    </>
  );
}

function OidcInputs(props: {
  issuer: string;
  setIssuer: (value: string) => void;
  discoveryEndpoint: string;
  setDiscoveryEndpoint: (value: string) => void;
  clientId: string;
  setClientId: (value: string) => void;
  clientSecret: string;
  setClientSecret: (value: string) => void;
  secretLabel: string;
  pkce: boolean;
  setPkce: (value: boolean) => void;
  required: boolean;
}): ReactNode {
  const t = useT();
  const pkceId = useId();
  return (
    <>
      <Field
        label={t("identityProvider.register.issuer")}
        name="issuer"
        type="url"
        required={props.required}
        value={props.issuer}
        onChange={(e) => props.setIssuer(e.target.value)}
      />
      <Field
        label={t("identityProvider.register.discoveryEndpoint")}
        name="discoveryEndpoint"
        type="url"
        value={props.discoveryEndpoint}
        onChange={(e) => props.setDiscoveryEndpoint(e.target.value)}
        hint={t("identityProvider.register.discoveryHint")}
      />
      <Field
        label={t("identityProvider.register.clientId")}
        name="clientId"
        required={props.required}
        autoComplete="off"
        value={props.clientId}
        onChange={(e) => props.setClientId(e.target.value)}
      />
      <Field
        label={props.secretLabel}
        name="clientSecret"
        type="password"
        required={props.required}
        autoComplete="new-password"
        value={props.clientSecret}
        onChange={(e) => props.setClientSecret(e.target.value)}
      />
      <div className="check">
        <input id={pkceId} type="checkbox" checked={props.pkce} onChange={(e) => props.setPkce(e.target.checked)} />
        <label htmlFor={pkceId}>{t("identityProvider.register.pkce")}</label>
      </div>
    </>
  );
}

/** Changes a provider: what is left empty is kept (a new client secret, new SAML metadata only when given). */
function EditProvider({ provider, access, onDone, onCancel }: { provider: SsoProvider; access: OrganizationAccess; onDone: () => Promise<void>; onCancel: () => void }) {
  const t = useT();
  const headingId = useId();
  const [issuer, setIssuer] = useState(provider.issuer);
  const [domain, setDomain] = useState(provider.domain);
  const [defaultRole, setDefaultRole] = useState(provider.defaultRole);
  const [discoveryEndpoint, setDiscoveryEndpoint] = useState(provider.oidcConfig?.discoveryEndpoint ?? "");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [pkce, setPkce] = useState(provider.oidcConfig?.pkce ?? true);
  const [saml, setSaml] = useState<SamlFields>(NO_SAML);
  const save = useMutation({
    mutationFn: () => {
      const oidc = provider.oidcConfig;
      const oidcConfig = oidc
        ? {
            ...(clientId.trim() ? { clientId: clientId.trim() } : {}),
            ...(clientSecret ? { clientSecret } : {}),
            ...(discoveryEndpoint.trim() && discoveryEndpoint.trim() !== oidc.discoveryEndpoint ? { discoveryEndpoint: discoveryEndpoint.trim() } : {}),
            ...(pkce !== oidc.pkce ? { pkce } : {}),
          }
        : undefined;
      const samlConfig = provider.type === "saml" ? samlConfigOf(saml) : undefined;
      return api.sso.update({
        providerId: provider.providerId,
        ...(issuer.trim() !== provider.issuer ? { issuer: issuer.trim() } : {}),
        ...(domain.trim() !== provider.domain ? { domain: domain.trim() } : {}),
        ...(defaultRole !== provider.defaultRole ? { defaultRole } : {}),
        ...(oidcConfig && Object.keys(oidcConfig).length > 0 ? { oidcConfig } : {}),
        ...(samlConfig ? { samlConfig } : {}),
      });
    },
    onSuccess: onDone,
  });
  return (
    <form
      className="provider-edit"
      aria-labelledby={headingId}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <h5 id={headingId}>{t("identityProvider.editTitle", { provider: provider.providerId })}</h5>
      <FormAlert key={save.submittedAt} message={save.error ? errorMessage(save.error) : undefined} cause={save.error} />
      <Field label={t("identityProvider.register.domain")} name="editDomain" required value={domain} onChange={(e) => setDomain(e.target.value)} />
      <RoleSelect access={access} value={defaultRole} onChange={setDefaultRole} />
      {provider.oidcConfig ? (
        <OidcInputs
          issuer={issuer}
          setIssuer={setIssuer}
          discoveryEndpoint={discoveryEndpoint}
          setDiscoveryEndpoint={setDiscoveryEndpoint}
          clientId={clientId}
          setClientId={setClientId}
          clientSecret={clientSecret}
          setClientSecret={setClientSecret}
          secretLabel={t("identityProvider.register.newClientSecret")}
          pkce={pkce}
          setPkce={setPkce}
          required={false}
        />
      ) : (
        <SamlInputs fields={saml} onChange={setSaml} required={false} />
      )}
      <div className="row">
        <SubmitButton pending={save.isPending} pendingText={t("identityProvider.saving")}>
          {t("identityProvider.save")}
        </SubmitButton>
        <button type="button" onClick={onCancel} disabled={save.isPending}>
          {t("identityProvider.cancel")}
        </button>
      </div>
    </form>
  );
}
