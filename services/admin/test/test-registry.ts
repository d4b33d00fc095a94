/**
 * The admin domain's dependencies for unit tests: the memory audit store, a clock the test moves, and fakes
 * of identity and session that behave like the services (users by id, sessions by token).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId, randomString } from "@auth-platform/runtime/random";
import { adminConfig } from "../src/config.js";
import { createMemoryAuditStore } from "../src/store/memory-audit-store.js";
import { banHolds } from "../src/domain/authorize.js";
import type { Caller, IdentityPort, Registry, Session, SessionPort, User, WebhooksPort } from "../src/domain/ports.js";

export const T0 = Date.UTC(2031, 0, 1);

export interface TestRegistry extends Registry {
  users: Map<string, User>;
  sessionsByToken: Map<string, Session>;
  clock: { advance(ms: number): void };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Registry["log"];

export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  let now = T0;
  const users = new Map<string, User>();
  const sessionsByToken = new Map<string, Session>();
  const userOf = (id: string) => {
    const user = users.get(id);
    if (!user) throw new AuthError("USER_NOT_FOUND");
    return user;
  };
  const update = (id: string, patch: Partial<User>) => {
    const user = { ...userOf(id), ...patch, updatedAt: new Date(now) };
    users.set(id, user);
    return user;
  };
  const identity: IdentityPort = {
    getUser: async (id) => users.get(id) ?? null,
    getUsers: async (ids) => ids.flatMap((id) => users.get(id) ?? []),
    // Identity's eq and contains filters (the ones the domain asks for) and page size; no search or offset, and
    // users in creation order (the order the domain asks for).
    listUsers: async ({ filterField, filterOperator, filterValue, limit, countLimit }) => {
      const operator = filterOperator || "eq";
      if (filterValue !== undefined && operator !== "eq" && operator !== "contains") throw new Error(`test registry: filterOperator ${filterOperator} is not faked`);
      const field = (filterField || "email") as keyof User;
      const matches = (user: User) => {
        const value = user[field];
        if (operator === "eq") return value === filterValue;
        return typeof value === "string" && value.toLowerCase().includes(String(filterValue).toLowerCase());
      };
      const matching = [...users.values()].filter((user) => filterValue === undefined || matches(user));
      return {
        users: matching.slice(0, limit || 100),
        total: Math.min(matching.length, countLimit || matching.length),
        totalIsLowerBound: countLimit > 0 && matching.length > countLimit,
        lastSignInAt: {},
      };
    },
    createUser: async (input) => {
      // No role: identity's default role (IDENTITY_DEFAULT_ROLE, "user").
      const user: User = {
        id: newId(),
        name: input.name,
        email: input.email,
        emailVerified: false,
        role: input.role ?? "user",
        banned: false,
        createdAt: new Date(now),
        updatedAt: new Date(now),
        extraFields: {},
        twoFactorEnabled: false,
      };
      users.set(user.id, user);
      return user;
    },
    setRole: async (id, role) => update(id, { role }),
    updateUser: async ({ userId, name, image, clearImage }) =>
      update(userId, { ...(name !== undefined && { name }), ...(image !== undefined && { image }), ...(clearImage && { image: undefined }) }),
    setUserPassword: async (id) => void userOf(id),
    banUser: async (id, reason, seconds) => {
      const user = update(id, { banned: true, banReason: reason || "No reason", banExpires: seconds ? new Date(now + seconds * 1000) : undefined });
      await sessions.revokeUserSessions(id);
      return user;
    },
    unbanUser: async (id) => update(id, { banned: false, banReason: undefined, banExpires: undefined }),
    removeUser: async (id) => {
      userOf(id);
      users.delete(id);
      await sessions.revokeUserSessions(id);
    },
  };
  const sessions: SessionPort = {
    listSessions: async (userId) => [...sessionsByToken.values()].filter((s) => s.userId === userId),
    async createImpersonationSession(input) {
      // As the session service: the newest copy it keeps of a banned user refuses the session.
      const kept = users.get(input.user.id);
      if (kept && banHolds(kept, new Date(now))) throw new AuthError("FAILED_TO_CREATE_SESSION");
      const session: Session = {
        id: newId(),
        token: randomString(32),
        userId: input.user.id,
        expiresAt: new Date(now + input.expiresInSeconds * 1000),
        createdAt: new Date(now),
        updatedAt: new Date(now),
        impersonatedBy: input.impersonatedBy,
        ipAddress: input.ipAddress,
        userAgent: input.userAgent,
      };
      sessionsByToken.set(session.token, session);
      return session;
    },
    async revokeSession(sessionId) {
      const session = [...sessionsByToken.values()].find((s) => s.id === sessionId);
      if (!session) throw new AuthError("SESSION_NOT_FOUND");
      sessionsByToken.delete(session.token);
      return session.userId;
    },
    async revokeUserSessions(userId) {
      for (const [token, session] of sessionsByToken) if (session.userId === userId) sessionsByToken.delete(token);
    },
  };
  const registry: TestRegistry = {
    config: adminConfig({ ...env }),
    store: createMemoryAuditStore(),
    identity,
    sessions,
    // The webhook RPCs only relay to the notification service: the platform suite drives them (gateway/test/webhooks.int.test.ts).
    webhooks: new Proxy({} as WebhooksPort, {
      get: (_, name) => () => Promise.reject(new Error(`webhooks.${String(name)} is not faked here`)),
    }),
    log: silent,
    now: () => new Date(now),
    users,
    sessionsByToken,
    clock: {
      advance: (ms) => {
        now += ms;
      },
    },
  };
  registries.push(registry);
  return registry;
}

const registries: TestRegistry[] = [];

/**
 * The caller the gateway asserts for a request carrying this token, built as it builds one from the live
 * session and the session's copy of the user; none when the token names no live session (the gateway
 * answers 401 before any call, and a call without a caller is refused).
 */
export function callerFor(token: string): Caller | undefined {
  for (const deps of registries) {
    const session = deps.sessionsByToken.get(token);
    if (!session) continue;
    const user = deps.users.get(session.userId);
    if (!user || session.expiresAt!.getTime() <= deps.now().getTime()) return undefined;
    return {
      sessionId: session.id,
      userId: user.id,
      role: user.role,
      impersonatedBy: session.impersonatedBy,
      sessionCreatedAt: session.createdAt,
      ipAddress: "203.0.113.9",
      userAgent: "unit",
      email: user.email,
      emailVerified: user.emailVerified,
    };
  }
  return undefined;
}

/** A user with a live (non-impersonation) session; returns the user and its session token. */
export function aSignedInUser(deps: TestRegistry, role = "user"): { user: User; token: string } {
  const user: User = {
    id: newId(),
    name: "Ada",
    email: `${newId()}@example.com`,
    emailVerified: true,
    role,
    banned: false,
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
    extraFields: {},
    twoFactorEnabled: false,
  };
  deps.users.set(user.id, user);
  const token = randomString(32);
  deps.sessionsByToken.set(token, { id: newId(), token, userId: user.id, expiresAt: new Date(deps.now().getTime() + 86_400_000), createdAt: deps.now(), updatedAt: deps.now() });
  return { user, token };
}
