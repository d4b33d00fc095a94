/**
 * The admin service on its own (testing/service-harness.ts), identity and session played by fake peers, over
 * the two wire forms of the user during a rolling upgrade (docs/adr/0047-one-user-message-between-releases.md):
 * it writes both forms to the session service (CreateSession), so a session replica of the previous release
 * keeps the impersonated user too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminServiceClient } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import { type CreateSessionRequest, type Session, SessionServiceService } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { type FakePeer, fakePeer, harnessEnv, type ServiceUnderTest, startServiceUnderTest } from "../../../testing/service-harness.js";
import { adminConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { start } from "../src/start.js";

const at = new Date("2026-11-28T12:00:00.000Z");
const aUser = (name: string, role: string): User => ({
  id: newId(),
  name,
  email: `${name.toLowerCase()}@example.com`,
  emailVerified: true,
  createdAt: at,
  updatedAt: at,
  extraFields: {},
  role,
  banned: false,
  twoFactorEnabled: false,
});
const anAdmin = aUser("Grace", "admin");
const aTarget = aUser("Ada", "user");

const aSession = (token: string, userId: string, impersonatedBy?: string): Session => ({
  id: newId(),
  token,
  userId,
  expiresAt: new Date(Date.now() + 3_600_000),
  createdAt: at,
  updatedAt: at,
  impersonatedBy,
});

/** The sessions the fake session service holds, by id. */
const sessions = new Map<string, Session>();
const created: CreateSessionRequest[] = [];

const adminSession = aSession("admin-token", anAdmin.id);

let peers: FakePeer[] = [];
let service: ServiceUnderTest<Registry>;
let gateway: AdminServiceClient;

beforeAll(async () => {
  const env = await harnessEnv();
  sessions.set(adminSession.id, adminSession);
  const identity = await fakePeer("identity", IdentityServiceService, { getUser: (req: { id: string }) => ({ user: req.id === aTarget.id ? aTarget : anAdmin }) }, env);
  const session = await fakePeer(
    "session",
    SessionServiceService,
    {
      createSession: (req: CreateSessionRequest) => {
        created.push(req);
        const impersonation = aSession(`imp-${newId()}`, req.userId, req.impersonatedBy);
        sessions.set(impersonation.id, impersonation);
        return { session: impersonation };
      },
      revokeSession: (req: { sessionId: string }) => {
        const ended = sessions.get(req.sessionId);
        sessions.delete(req.sessionId);
        return { userId: ended?.userId ?? "" };
      },
    },
    env,
  );
  peers = [identity, session];
  service = await startServiceUnderTest({
    name: "admin",
    configure: adminConfig,
    start,
    databaseVar: "ADMIN_DATABASE_URL",
    env: { IDENTITY_SERVICE_URL: identity.url, SESSION_SERVICE_URL: session.url },
  });
  gateway = service.clientAs(AdminServiceClient, "gateway");
});
afterAll(async () => {
  await service?.stop();
  await Promise.all(peers.map((peer) => peer.close()));
});

/** The caller the gateway asserts for a request in this session. */
const callerIn = (session: Session, user: User): Caller => ({
  sessionId: session.id,
  userId: user.id,
  role: user.role,
  impersonatedBy: session.impersonatedBy,
  sessionCreatedAt: session.createdAt,
  email: user.email,
  emailVerified: user.emailVerified,
});

describe(`the admin service and the two wire forms of the user (${backendLabel()})`, () => {
  it("impersonates writing both forms to the session service, and stops by session id", async () => {
    const { session } = await call(gateway, gateway.impersonateUser, { caller: callerIn(adminSession, anAdmin), userId: aTarget.id });
    expect(session).toMatchObject({ userId: aTarget.id, impersonatedBy: anAdmin.id });
    const asked = created.find((req) => req.userId === aTarget.id);
    expect(asked?.user).toEqual(aTarget);
    expect(asked?.sessionUser).toEqual(aTarget);

    await call(gateway, gateway.stopImpersonating, { caller: callerIn(session!, aTarget), adminSessionId: adminSession.id, adminUserId: anAdmin.id });
    expect(sessions.has(session!.id)).toBe(false);
    expect(sessions.has(adminSession.id)).toBe(true);
  });
});
