/**
 * The organization domain's dependencies for unit tests: the memory store, a clock the test moves, and
 * fakes of identity (users by id and email, counting calls), the session service (active organization per
 * session id) and the notification service (mail kept in a list; `mailDown` makes it fail). The
 * invitation mail worker does not run by itself: `deliverMail()` runs one pass, as the worker would.
 */
import type { Logger } from "@auth-platform/runtime/log";
import { newId, randomString } from "@auth-platform/runtime/random";
import { AuthError } from "@auth-platform/proto/errors";
import { organizationConfig } from "../src/config.js";
import { BATCH_SIZE, deliverDueInvitationMails } from "../src/domain/invitation-mail-worker.js";
import { createMemoryOrganizationStore } from "../src/store/memory-organization-store.js";
import type { Caller, MemberUser, Registry } from "../src/domain/ports.js";

export const T0 = Date.UTC(2031, 0, 1);
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface TestRegistry extends Registry {
  advance(ms: number): void;
  known: Map<string, MemberUser>;
  /** How many identity calls were made. */
  userCalls: number;
  /** Session id -> active organization id (and team), and the session's user. */
  sessionsById: Map<string, { userId: string; active: string | null; team?: string | null }>;
  /** While true, the session service's calls fail as an unreachable service does. */
  sessionsDown: boolean;
  sent: Array<{ to: string; variables: Record<string, string>; key: string; language?: string }>;
  /** SendEmail calls made, answered or not. */
  sendCalls: number;
  /** While true, SendEmail fails as an unreachable notification service does. */
  mailDown: boolean;
  /** The organizations whose API keys identity was asked to delete, in order. */
  apiKeysDeleted: string[];
  /** While true, identity's DeleteOrganizationApiKeys fails as an unreachable service does. */
  apiKeysDown: boolean;
  /** The webhook events published (PublishEvents), in order. */
  published: Array<{ id: string; type: string; data: unknown }>;
  /** How many times the invitation mail worker was woken. */
  wakes: number;
  /** Runs the invitation mail worker's pass (repeated while a pass finds a full batch); answers the mails now in `sent`. */
  deliverMail(): Promise<TestRegistry["sent"]>;
}

export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  let clock = T0;
  const registry: TestRegistry = {
    config: organizationConfig({ AUTH_APP_URL: "https://app.example.com", ...env }),
    store: createMemoryOrganizationStore(),
    log: silent,
    now: () => new Date(clock),
    advance: (ms) => {
      clock += ms;
    },
    known: new Map(),
    userCalls: 0,
    sessionsById: new Map(),
    sessionsDown: false,
    sent: [],
    sendCalls: 0,
    mailDown: false,
    published: [],
    apiKeysDeleted: [],
    apiKeysDown: false,
    wakes: 0,
    async deliverMail() {
      while ((await deliverDueInvitationMails(registry)) >= BATCH_SIZE);
      return registry.sent;
    },
    users: {
      async getUsers(ids, emails) {
        registry.userCalls++;
        return [...registry.known.values()].filter((u) => ids.includes(u.id) || emails.includes(u.email));
      },
    },
    sessions: {
      async setActiveOrganization(sessionId, organizationId) {
        if (registry.sessionsDown) throw new AuthError("SERVICE_UNAVAILABLE");
        const session = registry.sessionsById.get(sessionId);
        if (session) {
          if (session.active !== organizationId) session.team = null;
          session.active = organizationId;
        }
      },
      async clearActiveOrganization(organizationId, userId) {
        if (registry.sessionsDown) throw new AuthError("SERVICE_UNAVAILABLE");
        for (const session of registry.sessionsById.values()) {
          if (session.active === organizationId && (!userId || session.userId === userId)) Object.assign(session, { active: null, team: null });
        }
      },
      async setActiveTeam(sessionId, team) {
        if (registry.sessionsDown) throw new AuthError("SERVICE_UNAVAILABLE");
        const session = registry.sessionsById.get(sessionId);
        if (!session) return;
        session.team = team?.teamId ?? null;
        if (team) session.active = team.organizationId;
      },
      async clearActiveTeam(teamId, userId) {
        if (registry.sessionsDown) throw new AuthError("SERVICE_UNAVAILABLE");
        for (const session of registry.sessionsById.values()) if (session.team === teamId && (!userId || session.userId === userId)) session.team = null;
      },
    },
    mail: {
      async sendInvitation(to, variables, key, language) {
        registry.sendCalls++;
        if (registry.mailDown) throw new AuthError("SERVICE_UNAVAILABLE");
        if (!registry.sent.some((m) => m.key === key)) registry.sent.push({ to, variables, key, language });
      },
    },
    webhooks: {
      async publish(event) {
        registry.published.push({ id: event.id, type: event.type, data: JSON.parse(event.payloadJson) });
      },
    },
    apiKeys: {
      async deleteOrganizationKeys(organizationId) {
        if (registry.apiKeysDown) throw new AuthError("SERVICE_UNAVAILABLE");
        registry.apiKeysDeleted.push(organizationId);
      },
    },
    invitationMails: {
      wake: () => void registry.wakes++,
    },
  };
  return registry;
}

/** A signed-in user: known to identity, with one session; `caller()` reads the session's active organization. */
export function aUser(deps: TestRegistry, name = "Ada", emailVerified = true) {
  const user: MemberUser = { id: newId(), name, email: `${name.toLowerCase()}-${randomString(6).toLowerCase()}@example.com`, image: null };
  deps.known.set(user.id, user);
  const sessionId = randomString(16);
  deps.sessionsById.set(sessionId, { userId: user.id, active: null });
  const caller = (): Caller => ({
    userId: user.id,
    email: user.email,
    emailVerified,
    sessionId,
    activeOrganizationId: deps.sessionsById.get(sessionId)!.active,
    activeTeamId: deps.sessionsById.get(sessionId)!.team ?? null,
  });
  return { user, sessionId, caller, active: () => deps.sessionsById.get(sessionId)!.active, activeTeam: () => deps.sessionsById.get(sessionId)!.team ?? null };
}
