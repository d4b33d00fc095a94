/**
 * The identity domain's dependencies for unit tests: the memory store, a clock the test moves, and fakes of
 * the session and mail ports that behave like the services behind them (sessions are kept per user, mail
 * is kept per address), so tests assert what a user would see.
 */
import { HashingQueue } from "../src/hashing-queue.js";
import { passwordHasher } from "../src/password.js";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { PeerError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import type { Logger } from "@auth-platform/runtime/log";
import { newId, randomString } from "@auth-platform/runtime/random";
import { identityConfig } from "../src/config.js";
import { createMemoryIdentityStore } from "../src/store/memory-identity-store.js";
import type { UserRecord } from "../src/store/identity-store.js";
import { processDue } from "../src/domain/mail-request-worker.js";
import { deliverDueSessionOutbox, publishingStore } from "../src/domain/session-outbox.js";
import { deliverDueUserEvents, eventPublishingStore } from "../src/domain/user-events.js";
import { MAIL_REQUEST_DELAY_MS } from "../src/domain/mail-requests.js";
import type { DomainsPort, MailPort, MailTemplate, OrganizationPort, Registry, SessionPort, WebhooksPort } from "../src/domain/ports.js";
import { signUpEmail } from "../src/domain/sign-up.js";
import { providerTokenVault } from "../src/domain/provider-token-vault.js";
import { ApiKeyUsage, apiKeyHasher } from "../src/domain/api-keys.js";

export const T0 = Date.UTC(2031, 0, 1);
const SECRET = "domain-test-secret-0123456789-0123456789";

export interface SentMail {
  to: string;
  template: MailTemplate;
  variables: Record<string, string>;
  idempotencyKey: string;
  language?: Language;
}

/** The session service as identity sees it: sessions per user, and which users' cached copies were dropped. */
export interface FakeSessions extends SessionPort {
  live: Session[];
  forgotten: string[];
  /** The copy of each user the session service keeps (pushed with createSession and putUserCopy). */
  copies: Map<string, UserRecord>;
  /** Makes revokeUserSessions and revokeSession fail, as when the session service is unreachable. */
  failRevoke: boolean;
  /** Makes every call fail, as when the session service is unreachable. */
  unreachable: boolean;
  of(userId: string): Session[];
}

function fakeSessions(now: () => Date): FakeSessions {
  const sessions: FakeSessions = {
    live: [],
    forgotten: [],
    copies: new Map(),
    failRevoke: false,
    unreachable: false,
    of: (userId) => sessions.live.filter((s) => s.userId === userId),
    async createSession(user, { authentication }) {
      if (sessions.unreachable) throw new Error("session service unavailable");
      // As the session service records it: the method given, or for a rotation the rotated session's.
      const rotated = "rotates" in authentication ? sessions.live.find((s) => s.id === authentication.rotates && s.userId === user.id) : undefined;
      if ("rotates" in authentication && !rotated) throw new PeerError("SESSION_NOT_FOUND", 5, undefined, undefined);
      const recorded = rotated
        ? { authMethod: rotated.authMethod, secondFactor: rotated.secondFactor, authenticatedAt: rotated.authenticatedAt }
        : "method" in authentication
          ? { authMethod: authentication.method ?? undefined, secondFactor: authentication.secondFactor, authenticatedAt: now() }
          : {};
      const session: Session = { id: newId(), token: randomString(32), userId: user.id, createdAt: now(), ...recorded };
      sessions.copies.set(user.id, user);
      sessions.live.push(session);
      return session;
    },
    async revokeSession(userId, sessionId) {
      if (sessions.failRevoke || sessions.unreachable) throw new Error("session service unavailable");
      const session = sessions.live.find((s) => s.id === sessionId && s.userId === userId);
      if (!session) throw new PeerError("SESSION_NOT_FOUND", 5, undefined, undefined);
      sessions.live = sessions.live.filter((s) => s !== session);
    },
    async revokeUserSessions(userId, user) {
      if (sessions.failRevoke || sessions.unreachable) throw new Error("session service unavailable");
      if (user) sessions.copies.set(user.id, user);
      sessions.live = sessions.live.filter((s) => s.userId !== userId);
    },
    async putUserCopy(user) {
      if (sessions.unreachable) throw new Error("session service unavailable");
      sessions.forgotten.push(user.id);
      sessions.copies.set(user.id, user);
    },
    async dropUserCopy(userId) {
      if (sessions.unreachable) throw new Error("session service unavailable");
      sessions.copies.delete(userId);
    },
    async usersMissingSnapshot(afterUserId, limit) {
      const ids = new Set(sessions.live.map((s) => s.userId).filter((id) => id > afterUserId && !sessions.copies.has(id)));
      return [...ids].sort().slice(0, limit);
    },
  };
  return sessions;
}

/** The notification service as identity sees it: one message per idempotency key. */
/** The organization service as identity sees it: whose memberships were removed, and a switch to fail. */
export interface FakeOrganizations extends OrganizationPort {
  removed: string[];
  /** Memberships made, as "organizationId/userId" → role. */
  members: Map<string, string>;
  /** Makes removeUserMemberships and addMember fail, as when the organization service is unreachable. */
  failRemove: boolean;
}

function fakeOrganizations(): FakeOrganizations {
  const organizations: FakeOrganizations = {
    removed: [],
    members: new Map(),
    failRemove: false,
    async removeUserMemberships(userId) {
      if (organizations.failRemove) throw new Error("organization service unavailable");
      organizations.removed.push(userId);
    },
    async addMember(organizationId, userId, role) {
      if (organizations.failRemove) throw new Error("organization service unavailable");
      const key = `${organizationId}/${userId}`;
      if (!organizations.members.has(key)) organizations.members.set(key, role);
    },
    // As the built-in roles grant it: owner and admin hold every apiKey action, member none.
    async apiKeyPermission(caller, organizationId) {
      const role = organizations.members.get(`${organizationId}/${caller.userId}`);
      if (role === undefined) return "not-member";
      return role === "owner" || role === "admin" ? "granted" : "denied";
    },
  };
  return organizations;
}

/** The sso service as identity sees it: each auto-join asked for, and a switch to make it unreachable. */
export interface FakeDomains extends DomainsPort {
  applied: Array<{ userId: string; email: string; verifiedAt: Date }>;
  unreachable: boolean;
}

function fakeDomains(): FakeDomains {
  const domains: FakeDomains = {
    applied: [],
    unreachable: false,
    async applyAutoJoin(userId, email, verifiedAt) {
      if (domains.unreachable) throw new Error("sso service unavailable");
      domains.applied.push({ userId, email, verifiedAt });
    },
  };
  return domains;
}

/** The notification service's webhooks as identity sees them: each event published, and a switch to make it unreachable. */
export interface FakeWebhooks extends WebhooksPort {
  published: Array<{ id: string; type: string; occurredAt: Date; payloadJson: string }>;
  unreachable: boolean;
}

function fakeWebhooks(): FakeWebhooks {
  const webhooks: FakeWebhooks = {
    published: [],
    unreachable: false,
    async publish(event) {
      if (webhooks.unreachable) throw new Error("notification service unavailable");
      if (!webhooks.published.some((e) => e.id === event.id)) webhooks.published.push(event);
    },
  };
  return webhooks;
}

export interface FakeMail extends MailPort {
  sent: SentMail[];
  to(address: string, template?: MailTemplate): SentMail[];
  /** The link of the newest mail of this template to this address. */
  link(address: string, template: MailTemplate): string;
}

function fakeMail(): FakeMail {
  const mail: FakeMail = {
    sent: [],
    to: (address, template) => mail.sent.filter((m) => m.to === address && (!template || m.template === template)),
    link(address, template) {
      const found = mail.to(address, template).at(-1);
      if (!found) throw new Error(`no ${template} mail to ${address} (sent: ${mail.sent.map((m) => `${m.template} ${m.to}`).join(", ")})`);
      return found.variables.url!;
    },
    async send(to, template, variables, idempotencyKey, language) {
      if (!mail.sent.some((m) => m.idempotencyKey === idempotencyKey)) mail.sent.push({ to, template, variables, idempotencyKey, language });
    },
  };
  return mail;
}

export interface TestRegistry extends Registry {
  sessions: FakeSessions;
  organizations: FakeOrganizations;
  domains: FakeDomains;
  webhooks: FakeWebhooks;
  mail: FakeMail;
  /** Moves the clock forward. */
  advance(ms: number): void;
  /** Runs the mail request worker once every queued request is due (what the real worker does on its own). */
  processMailRequests(): Promise<void>;
  /** Runs one pass of the session outbox worker (what the real worker does on its own). */
  processSessionOutbox(): Promise<number>;
  /** Runs one pass of the user event worker (what the real worker does on its own). */
  processUserEvents(): Promise<number>;
  /** How often a request's own delivery of user events failed and woke the worker. */
  userEventWakes: number;
  /** How many times the user event outbox was read (findUserEvents). */
  userEventReads: number;
  /** Resolves once the webhook deliveries the writes so far started after returning have ended. */
  backgroundSettled(): Promise<void>;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A registry on a fresh memory store, its clock at T0; `env` as the service's environment. */
export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  let clock = T0;
  const now = () => new Date(clock);
  const memory = createMemoryIdentityStore({ now });
  // Counts the reads of the user event outbox (a write should need one).
  const rows: typeof memory = {
    ...memory,
    findUserEvents: (userId) => {
      registry.userEventReads += 1;
      return memory.findUserEvents(userId);
    },
  };
  const background: Promise<void>[] = [];
  const registry: TestRegistry = {
    config: identityConfig({ AUTH_SECRET: SECRET, AUTH_BASE_URL: "https://auth.example.com/api/auth", ...env }),
    store: rows,
    sessions: fakeSessions(now),
    organizations: fakeOrganizations(),
    domains: fakeDomains(),
    webhooks: fakeWebhooks(),
    mail: fakeMail(),
    mailRequests: { wake() {} },
    passwords: passwordHasher(new HashingQueue({ concurrency: 2, maxQueued: 64 })),
    log: silent,
    now,
    providerTokens: providerTokenVault(SECRET),
    // Writes through registry.store, as read when it flushes (a test may spy on it).
    apiKeys: { hash: apiKeyHasher(SECRET), usage: new ApiKeyUsage({ recordApiKeyUses: (uses) => registry.store.recordApiKeyUses(uses) }, silent) },
    advance: (ms) => {
      clock += ms;
    },
    async processMailRequests() {
      clock += MAIL_REQUEST_DELAY_MS;
      await processDue(registry);
    },
    processSessionOutbox: () => deliverDueSessionOutbox(registry),
    processUserEvents: () => deliverDueUserEvents(registry),
    userEventWakes: 0,
    userEventReads: 0,
    async backgroundSettled() {
      while (background.length) await Promise.all(background.splice(0));
    },
  };
  // As the service runs: every write of a user delivered to the session service before it returns, and
  // each write that verifies an address followed by the delivery of its user event.
  registry.store = publishingStore(rows, { ...registry, outbox: { wake() {} } });
  registry.store = eventPublishingStore(registry.store, {
    ...registry,
    worker: {
      wake() {
        registry.userEventWakes += 1;
      },
    },
    inBackground: (work) => background.push(work()),
  });
  return registry;
}

/** Signs a user up with a password (default "password-123"), as the sign-up form does. */
export async function aSignedUpUser(deps: TestRegistry, overrides: { email?: string; password?: string; username?: string } = {}) {
  const email = overrides.email ?? `${randomString(8).toLowerCase()}@example.com`;
  const password = overrides.password ?? "password-123";
  const { user, session } = await signUpEmail(deps, { name: "Ada", email, password, username: overrides.username, extraFields: {}, rememberMe: true, client: {} });
  return { user, session, email, password };
}

/** The token at the end of a link's path, or in its `token` query parameter. */
export function tokenIn(link: string): string {
  const url = new URL(link);
  return url.searchParams.get("token") ?? url.pathname.split("/").pop()!;
}
