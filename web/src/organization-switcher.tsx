/** The header's organization switcher: a labelled select of the caller's organizations; choosing one makes it active. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { api, errorMessage, type Organization } from "./api";
import { useT } from "./i18n";
import { refreshOrganizations } from "./organization-queries";

export function OrganizationSwitcher({ organizations, activeId }: { organizations: Organization[]; activeId: string | null }) {
  const t = useT();
  const id = useId();
  const queryClient = useQueryClient();
  // Read again whatever the answer: a refused choice clears the active organization too.
  const choose = useMutation({ mutationFn: (next: string | null) => api.organization.setActive(next), onSettled: () => refreshOrganizations(queryClient) });
  // An active organization the list does not hold (left meanwhile) shows as none.
  const current = activeId && organizations.some((organization) => organization.id === activeId) ? activeId : "";
  return (
    <div className="switcher">
      <label htmlFor={id}>{t("organizations.switcher.label")}</label>
      <select id={id} value={choose.isPending ? (choose.variables ?? "") : current} disabled={choose.isPending} onChange={(event) => choose.mutate(event.target.value || null)}>
        <option value="">{t("organizations.switcher.none")}</option>
        {organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </select>
      {choose.error && (
        <span key={choose.submittedAt} role="alert" className="field-error">
          {errorMessage(choose.error)}
        </span>
      )}
    </div>
  );
}
