/** The SCIM use cases' peers as a record of what they were asked, with a switch to make them fail. */
import { MemoryScimStore } from "../src/scim/memory-scim-store.js";
import type { ScimDeps, ScimPeers } from "../src/scim/ports.js";

export interface FakePeers extends ScimPeers {
  users: Map<string, { id: string; email: string; name: string; active: boolean }>;
  members: Set<string>;
  verifiedDomains: Map<string, string[]>;
  /** team id -> its organization, name and members */
  teams: Map<string, { organizationId: string; name: string; members: Set<string> }>;
  /** "<organization>/<user>" -> role */
  roles: Map<string, string>;
  calls: string[];
  /** While set, the organization service is unreachable. */
  organizationDown: boolean;
}

export function fakePeers(): FakePeers {
  let next = 0;
  const peers: FakePeers = {
    users: new Map(),
    members: new Set(),
    verifiedDomains: new Map(),
    roles: new Map(),
    teams: new Map(),
    calls: [],
    organizationDown: false,
    async findUserByEmail(email) {
      const user = [...peers.users.values()].find((u) => u.email === email);
      return user && { id: user.id };
    },
    async createUser({ email, name }) {
      const id = `user-${++next}`;
      peers.users.set(id, { id, email, name, active: true });
      peers.calls.push(`create ${email}`);
      return { id };
    },
    async addMember(organizationId, userId) {
      if (peers.organizationDown) throw new Error("organization unavailable");
      peers.members.add(`${organizationId}/${userId}`);
      peers.calls.push(`add ${organizationId}/${userId}`);
    },
    async removeMember(organizationId, userId) {
      if (peers.organizationDown) throw new Error("organization unavailable");
      peers.members.delete(`${organizationId}/${userId}`);
      peers.calls.push(`remove ${organizationId}/${userId}`);
    },
    async deactivateUser(userId) {
      peers.users.get(userId)!.active = false;
      peers.calls.push(`deactivate ${userId}`);
    },
    async reactivateUser(userId) {
      peers.users.get(userId)!.active = true;
      peers.calls.push(`reactivate ${userId}`);
    },
    async createTeam(organizationId, name) {
      const id = `team-${++next}`;
      peers.teams.set(id, { organizationId, name, members: new Set() });
      return { id };
    },
    async renameTeam(_organizationId, teamId, name) {
      peers.teams.get(teamId)!.name = name;
    },
    async removeTeam(_organizationId, teamId) {
      peers.teams.delete(teamId);
    },
    async addTeamMember(organizationId, teamId, userId) {
      if (!peers.members.has(`${organizationId}/${userId}`)) throw new Error("not a member of the organization");
      peers.teams.get(teamId)!.members.add(userId);
    },
    async removeTeamMember(_organizationId, teamId, userId) {
      peers.teams.get(teamId)!.members.delete(userId);
    },
    async roleIn(organizationId, userId) {
      return peers.roles.get(`${organizationId}/${userId}`);
    },
    async ownsDomainOf(organizationId, email) {
      return (peers.verifiedDomains.get(organizationId) ?? []).includes(email.split("@")[1]!);
    },
  };
  return peers;
}

export function scimDeps(): ScimDeps & { peers: FakePeers; clock: { now: Date }; woken: number } {
  const clock = { now: new Date("2026-03-01T10:00:00.000Z") };
  const deps = {
    store: new MemoryScimStore(),
    peers: fakePeers(),
    clock,
    now: () => clock.now,
    woken: 0,
    wakeDelivery: () => {
      deps.woken++;
    },
  };
  return deps;
}
