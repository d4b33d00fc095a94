/**
 * The admin service on its own (testing/service-harness.ts), identity and session played by fake peers, over
 * the two wire forms of the user during a rolling upgrade (docs/adr/0047-one-user-message-between-releases.md):
 * it reads the caller's user from a session replica of the previous release, which answers only the
 * deprecated `sessionUser`, and it writes both forms itself, to the session service (CreateSession) and to the
 * gateway (StopImpersonating).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminServiceClient } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { type CreateSessionRequest, type GetSessionResponse, type Session, SessionServiceService } from "@auth-platform/proto/gen/auth/session/v1/session";
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

/** What the fake session service answers GetSession with, by token. */
const sessions = new Map<string, GetSessionResponse>();
const created: CreateSessionRequest[] = [];

let peers: FakePeer[] = [];
let service: ServiceUnderTest<Registry>;
let gateway: AdminServiceClient;

beforeAll(async () => {
  const env = await harnessEnv();
  // The admin's own session, as a session replica of the previous release answers it: the deprecated form alone.
  sessions.set("admin-token", { session: aSession("admin-token", anAdmin.id), sessionUser: anAdmin, refreshed: false });
  const identity = await fakePeer("identity", IdentityServiceService, { getUser: (req: { id: string }) => ({ user: req.id === aTarget.id ? aTarget : anAdmin }) }, env);
  const session = await fakePeer(
    "session",
    SessionServiceService,
    {
      getSession: (req: { token: string }) => sessions.get(req.token) ?? { refreshed: false },
      createSession: (req: CreateSessionRequest) => {
        created.push(req);
        const impersonation = aSession(`imp-${newId()}`, req.userId, req.impersonatedBy);
        // A session replica of this release answers both forms.
        sessions.set(impersonation.token, { session: impersonation, user: aTarget, sessionUser: aTarget, refreshed: false });
        return { session: impersonation };
      },
      revokeSession: (req: { token: string }) => {
        sessions.delete(req.token);
        return {};
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

describe(`the admin service and the two wire forms of the user (${backendLabel()})`, () => {
  it("impersonates with a caller read from the old form, and writes both forms to session and gateway", async () => {
    const { session } = await call(gateway, gateway.impersonateUser, { caller: { sessionToken: "admin-token" }, userId: aTarget.id });
    expect(session).toMatchObject({ userId: aTarget.id, impersonatedBy: anAdmin.id });
    const asked = created.find((req) => req.userId === aTarget.id);
    expect(asked?.user).toEqual(aTarget);
    expect(asked?.sessionUser).toEqual(aTarget);

    const back = await call(gateway, gateway.stopImpersonating, { caller: { sessionToken: session!.token }, adminSessionToken: "admin-token" });
    expect(back.session).toMatchObject({ token: "admin-token", userId: anAdmin.id });
    expect(back.user).toEqual(anAdmin);
    expect(back.sessionUser).toEqual(anAdmin);
  });
});
