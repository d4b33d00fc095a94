/**
 * The active organization's teams (docs/organizations.md#teams): list, create, rename, delete (asked first),
 * members added and removed, and the session's active team. Managing is offered to those the organization
 * says may (`access.canManageTeams`); a team's members are shown to its members and to them.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { api, errorMessage, type FullOrganization, type Member, type OrganizationAccess, type Team } from "../api";
import { ConfirmButton, type Done, Field, FormAlert, SubmitButton } from "../components";
import { useT } from "../i18n";
import { myTeamsQuery, teamMembersQuery } from "../organization-queries";
import { useSession } from "../session";

/** What the teams' actions report to the page (its Outcome). */
export interface TeamOutcome {
  started: () => void;
  done: (done: Done) => void;
  refused: (error: unknown) => void;
  changed: () => Promise<unknown>;
}

const nameOf = (member: Member) => (member.user ? `${member.user.name} (${member.user.email})` : member.userId);

export function Teams({ organization, access, outcome }: { organization: FullOrganization; access: OrganizationAccess; outcome: TeamOutcome }) {
  const t = useT();
  const mine = useQuery(myTeamsQuery(organization.id));
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => api.organization.createTeam(name, organization.id),
    onSuccess: async (team) => {
      setName("");
      outcome.done({ message: t("organizations.teams.created", { team: team.name }) });
      await outcome.changed();
    },
  });
  const myIds = new Set((mine.data ?? []).map((team) => team.id));
  return (
    <>
      <h3>{t("organizations.teams.title")}</h3>
      {organization.teams.length === 0 && <p>{t("organizations.teams.none")}</p>}
      <ul className="list" aria-label={t("organizations.teams.title")}>
        {organization.teams.map((team) => (
          <TeamRow key={team.id} team={team} organization={organization} access={access} inTeam={myIds.has(team.id)} outcome={outcome} />
        ))}
      </ul>
      {access.canManageTeams && (
        <form
          onSubmit={(event: FormEvent) => {
            event.preventDefault();
            create.mutate();
          }}
          noValidate
        >
          <FormAlert key={create.submittedAt} message={create.error ? errorMessage(create.error) : undefined} />
          <Field label={t("organizations.teams.name")} name="teamName" required value={name} onChange={(e) => setName(e.target.value)} />
          <SubmitButton pending={create.isPending} pendingText={t("organizations.teams.creating")}>
            {t("organizations.teams.create")}
          </SubmitButton>
        </form>
      )}
    </>
  );
}

function TeamRow({
  team,
  organization,
  access,
  inTeam,
  outcome,
}: {
  team: Team;
  organization: FullOrganization;
  access: OrganizationAccess;
  inTeam: boolean;
  outcome: TeamOutcome;
}) {
  const t = useT();
  const session = useSession();
  const isActive = session.data?.session.activeTeamId === team.id;
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(team.name);
  const act = async (run: () => Promise<unknown>, message: string) => {
    outcome.started();
    try {
      await run();
      outcome.done({ message });
    } catch (error) {
      outcome.refused(error);
    }
    await outcome.changed();
  };
  const rename = useMutation({
    mutationFn: () => api.organization.renameTeam(team.id, newName),
    onSuccess: async (renamed) => {
      setRenaming(false);
      outcome.done({ message: t("organizations.teams.renamed", { team: renamed.name }) });
      await outcome.changed();
    },
  });
  return (
    <li>
      <div className="row">
        <strong>{team.name}</strong>
        {isActive && <span className="badge">{t("organizations.teams.active")}</span>}
        {inTeam && !isActive && (
          <button type="button" onClick={() => act(() => api.organization.setActiveTeam(team.id), t("organizations.teams.activeSet", { team: team.name }))}>
            <span aria-hidden="true">{t("organizations.teams.setActive")}</span>
            <span className="visually-hidden">{t("organizations.teams.setActiveName", { team: team.name })}</span>
          </button>
        )}
        {isActive && (
          <button type="button" onClick={() => act(() => api.organization.setActiveTeam(null), t("organizations.teams.activeCleared", { team: team.name }))}>
            {t("organizations.teams.clearActive")}
          </button>
        )}
        {access.canManageTeams && !renaming && (
          <button type="button" onClick={() => setRenaming(true)}>
            <span aria-hidden="true">{t("organizations.teams.rename")}</span>
            <span className="visually-hidden">{t("organizations.teams.renameName", { team: team.name })}</span>
          </button>
        )}
        {access.canManageTeams && (
          <ConfirmButton
            danger
            title={t("organizations.teams.deleteTitle", { team: team.name })}
            description={t("organizations.teams.deleteDescription", { team: team.name })}
            confirmLabel={t("organizations.teams.deleteConfirm")}
            pendingText={t("organizations.teams.deleting")}
            onConfirm={() => act(() => api.organization.removeTeam(team.id), t("organizations.teams.deleted", { team: team.name }))}
          >
            <span aria-hidden="true">{t("organizations.teams.delete")}</span>
            <span className="visually-hidden">{t("organizations.teams.deleteName", { team: team.name })}</span>
          </ConfirmButton>
        )}
      </div>
      {renaming && (
        <form
          onSubmit={(event: FormEvent) => {
            event.preventDefault();
            rename.mutate();
          }}
          noValidate
        >
          <FormAlert key={rename.submittedAt} message={rename.error ? errorMessage(rename.error) : undefined} />
          <Field label={t("organizations.teams.newName", { team: team.name })} name={`rename-${team.id}`} required value={newName} onChange={(e) => setNewName(e.target.value)} />
          <div className="row">
            <SubmitButton pending={rename.isPending} pendingText={t("organizations.teams.saving")}>
              {t("organizations.teams.save")}
            </SubmitButton>
            <button type="button" onClick={() => setRenaming(false)}>
              {t("organizations.teams.cancel")}
            </button>
          </div>
        </form>
      )}
      {(inTeam || access.canManageTeams) && <TeamMembers team={team} organization={organization} access={access} act={act} />}
    </li>
  );
}

function TeamMembers({
  team,
  organization,
  access,
  act,
}: {
  team: Team;
  organization: FullOrganization;
  access: OrganizationAccess;
  act: (run: () => Promise<unknown>, message: string) => Promise<void>;
}) {
  const t = useT();
  const members = useQuery(teamMembersQuery(team.id));
  const selectId = useId();
  const inTeam = new Set((members.data ?? []).map((place) => place.userId));
  const byUser = new Map(organization.members.map((member) => [member.userId, member]));
  const candidates = organization.members.filter((member) => !inTeam.has(member.userId));
  const [chosen, setChosen] = useState("");
  const label = (userId: string) => {
    const member = byUser.get(userId);
    return member ? nameOf(member) : userId;
  };
  return (
    <div>
      <ul className="list" aria-label={t("organizations.teams.membersOf", { team: team.name })}>
        {members.data?.length === 0 && <li className="muted">{t("organizations.teams.noMembers")}</li>}
        {members.data?.map((place) => (
          <li key={place.id} className="row">
            <span>{label(place.userId)}</span>
            {access.canManageTeams && (
              <ConfirmButton
                title={t("organizations.teams.removeMemberTitle", { who: label(place.userId), team: team.name })}
                description={t("organizations.teams.removeMemberDescription", { who: label(place.userId), team: team.name })}
                confirmLabel={t("organizations.teams.removeMemberConfirm")}
                pendingText={t("organizations.teams.removingMember")}
                onConfirm={() =>
                  act(() => api.organization.removeTeamMember(team.id, place.userId), t("organizations.teams.memberRemoved", { who: label(place.userId), team: team.name }))
                }
              >
                <span aria-hidden="true">{t("organizations.teams.removeMember")}</span>
                <span className="visually-hidden">{t("organizations.teams.removeMemberWho", { who: label(place.userId), team: team.name })}</span>
              </ConfirmButton>
            )}
          </li>
        ))}
      </ul>
      {access.canManageTeams && candidates.length > 0 && (
        <form
          className="row"
          onSubmit={(event: FormEvent) => {
            event.preventDefault();
            const userId = chosen || candidates[0]!.userId;
            void act(() => api.organization.addTeamMember(team.id, userId), t("organizations.teams.memberAdded", { who: label(userId), team: team.name }));
          }}
        >
          <div className="field">
            <label htmlFor={selectId}>{t("organizations.teams.addMemberTo", { team: team.name })}</label>
            <select id={selectId} value={chosen || candidates[0]!.userId} onChange={(e) => setChosen(e.target.value)}>
              {candidates.map((member) => (
                <option key={member.userId} value={member.userId}>
                  {nameOf(member)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">
            <span aria-hidden="true">{t("organizations.teams.addMember")}</span>
            <span className="visually-hidden">{t("organizations.teams.addMemberTo", { team: team.name })}</span>
          </button>
        </form>
      )}
    </div>
  );
}
