/**
 * The Roles part of an organization's settings: its custom roles, each with what it grants, created and
 * edited with a checklist of the platform's permissions (contract/src/permissions.ts) and deleted after a
 * confirmation. Only the actions the member's role allows are offered (`access.roleActions`); the service
 * refuses the rest, a role beyond the member's own included (docs/organizations.md#custom-roles).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { type Permissions, RESOURCES, type Resource } from "@auth-platform/contract/permissions";
import { api, errorMessage, type FullOrganization, type OrganizationAccess, type OrganizationRole } from "../api";
import { ConfirmButton, Field, FormAlert, SubmitButton } from "../components";
import { useT } from "../i18n";
import type { Outcome } from "./organizations";

const RESOURCE_NAMES = Object.keys(RESOURCES) as Resource[];
type Action = (typeof RESOURCES)[Resource][number];

/** "member: update, delete; invitation: create" in the reader's words. */
function useSummary() {
  const t = useT();
  return (permission: Record<string, string[]>) => {
    const parts = RESOURCE_NAMES.filter((resource) => permission[resource]?.length).map(
      (resource) =>
        `${t(`organizations.rolesScreen.resources.${resource}`)}: ${permission[resource]!.map((action) => t(`organizations.rolesScreen.actions.${action as Action}`)).join(", ")}`,
    );
    return parts.length ? parts.join("; ") : t("organizations.rolesScreen.grantsNothing");
  };
}

/** The permission checklist: one group per resource, one box per action. */
function Checklist({ value, onChange }: { value: Permissions; onChange: (next: Permissions) => void }) {
  const t = useT();
  const id = useId();
  const toggle = (resource: Resource, action: string, on: boolean) => {
    const actions = new Set(value[resource] ?? []);
    if (on) actions.add(action);
    else actions.delete(action);
    onChange({ ...value, [resource]: RESOURCES[resource].filter((a) => actions.has(a)) });
  };
  return (
    <div className="checklist">
      {RESOURCE_NAMES.map((resource) => (
        <fieldset key={resource}>
          <legend>{t(`organizations.rolesScreen.resources.${resource}`)}</legend>
          {RESOURCES[resource].map((action) => {
            const boxId = `${id}-${resource}-${action}`;
            return (
              <div key={action} className="check">
                <input id={boxId} type="checkbox" checked={value[resource]?.includes(action) ?? false} onChange={(e) => toggle(resource, action, e.target.checked)} />
                <label htmlFor={boxId}>{t(`organizations.rolesScreen.actions.${action}`)}</label>
              </div>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}

/** Only the resources with an action: what the service stores. */
const granted = (permissions: Permissions): Record<string, string[]> =>
  Object.fromEntries(Object.entries(permissions).filter(([, actions]) => actions?.length)) as Record<string, string[]>;

function RoleForm({
  initial,
  submitLabel,
  pendingLabel,
  onSubmit,
  onCancel,
}: {
  initial?: OrganizationRole;
  submitLabel: string;
  pendingLabel: string;
  onSubmit: (name: string, permission: Record<string, string[]>) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const t = useT();
  const [name, setName] = useState(initial?.role ?? "");
  const [permissions, setPermissions] = useState<Permissions>((initial?.permission as Permissions) ?? {});
  const save = useMutation({ mutationFn: () => onSubmit(name.trim(), granted(permissions)) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(undefined, {
      onSuccess: () => {
        if (!initial) {
          setName("");
          setPermissions({});
        }
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormAlert key={save.submittedAt} message={save.error ? errorMessage(save.error) : undefined} />
      <Field
        label={t("organizations.rolesScreen.name")}
        name="roleName"
        required
        value={name}
        onChange={(e) => setName(e.target.value)}
        hint={t("organizations.rolesScreen.nameHint")}
      />
      <Checklist value={permissions} onChange={setPermissions} />
      <div className="row">
        <SubmitButton pending={save.isPending} pendingText={pendingLabel}>
          {submitLabel}
        </SubmitButton>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            {t("common.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}

export function Roles({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: Outcome }) {
  const t = useT();
  const summary = useSummary();
  const roles = useQuery({ queryKey: ["organization", "roles", organization.id], queryFn: () => api.organization.listRoles(organization.id) });
  const [editing, setEditing] = useState<string>();
  const may = (action: string) => access.roleActions.includes(action);
  const create = async (name: string, permission: Record<string, string[]>) => {
    const { roleData } = await api.organization.createRole(organization.id, name, permission);
    outcome.done({ message: t("organizations.rolesScreen.created", { role: roleData.role }) });
    await outcome.changed();
  };
  const update = (role: OrganizationRole) => async (name: string, permission: Record<string, string[]>) => {
    await api.organization.updateRole(organization.id, role.id, { ...(name !== role.role ? { roleName: name } : {}), permission });
    setEditing(undefined);
    outcome.done({ message: t("organizations.rolesScreen.updated", { role: name }) });
    await outcome.changed();
  };
  const remove = (role: OrganizationRole) => async () => {
    await api.organization.deleteRole(organization.id, role.id);
    outcome.done({ message: t("organizations.rolesScreen.deleted", { role: role.role }) });
    await outcome.changed();
  };
  return (
    <section aria-labelledby="org-roles-title">
      <h3 id="org-roles-title">{t("organizations.rolesScreen.title")}</h3>
      {roles.error && <FormAlert message={errorMessage(roles.error)} />}
      {roles.data?.length === 0 && <p>{t("organizations.rolesScreen.none")}</p>}
      <ul className="list" aria-label={t("organizations.rolesScreen.title")}>
        {roles.data?.map((role) => (
          <li key={role.id}>
            {editing === role.id ? (
              <RoleForm
                initial={role}
                submitLabel={t("organizations.rolesScreen.save")}
                pendingLabel={t("organizations.rolesScreen.saving")}
                onSubmit={update(role)}
                onCancel={() => setEditing(undefined)}
              />
            ) : (
              <>
                <span>
                  <strong>{role.role}</strong> <span className="muted">{summary(role.permission)}</span>
                </span>
                <span className="row">
                  {may("update") && (
                    <button type="button" onClick={() => setEditing(role.id)} aria-label={t("organizations.rolesScreen.editName", { role: role.role })}>
                      {t("organizations.rolesScreen.edit")}
                    </button>
                  )}
                  {may("delete") && (
                    <ConfirmButton
                      title={t("organizations.rolesScreen.deleteTitle", { role: role.role })}
                      description={t("organizations.rolesScreen.deleteDescription", { role: role.role })}
                      confirmLabel={t("organizations.rolesScreen.deleteConfirm")}
                      pendingText={t("organizations.rolesScreen.deleting")}
                      onConfirm={remove(role)}
                    >
                      {t("organizations.rolesScreen.deleteName", { role: role.role })}
                    </ConfirmButton>
                  )}
                </span>
              </>
            )}
          </li>
        ))}
      </ul>
      {may("create") && (
        <section aria-labelledby="org-roles-create-title">
          <h4 id="org-roles-create-title">{t("organizations.rolesScreen.createTitle")}</h4>
          <RoleForm submitLabel={t("organizations.rolesScreen.create")} pendingLabel={t("organizations.rolesScreen.creating")} onSubmit={create} />
        </section>
      )}
    </section>
  );
}
