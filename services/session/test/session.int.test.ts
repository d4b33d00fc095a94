/**
 * The session service on its own (testing/service-harness.ts): its real gRPC server under mutual TLS, its
 * real store on a fresh database, the callers played by the test certificates of identity, the gateway,
 * organization, admin and our users' services. No other service runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { peerCodeOf, REFUSED, startServiceUnderTest, type ServiceUnderTest } from "../../../testing/service-harness.js";
import { sessionConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { start } from "../src/start.js";

let service: ServiceUnderTest<Registry>;
let identity: SessionServiceClient;
let gateway: SessionServiceClient;

beforeAll(async () => {
  service = await startServiceUnderTest({
    name: "session",
    configure: sessionConfig,
    start,
    databaseVar: "SESSION_DATABASE_URL",
    env: { AUTH_SECRET: "session-harness-secret-0123456789abcdef" },
  });
  identity = service.clientAs(SessionServiceClient, "identity");
  gateway = service.clientAs(SessionServiceClient, "gateway");
});
afterAll(() => service?.stop());

/** The copy of a user identity hands over with a new session. */
function userCopy(overrides: Partial<User> = {}): User {
  const id = overrides.id ?? newId();
  const at = new Date();
  return {
    id,
    name: "Ada",
    email: `${id}@example.com`,
    emailVerified: true,
    createdAt: at,
    updatedAt: at,
    extraFields: {},
    twoFactorEnabled: false,
    role: "user",
    banned: false,
    ...overrides,
  };
}

/** A new session of a new user, as identity creates it at sign-in. */
async function signedIn(user = userCopy()) {
  const { session } = await call(identity, identity.createSession, {
    userId: user.id,
    ipAddress: "198.51.100.7",
    userAgent: "harness",
    rememberMe: true,
    expiresInSeconds: 0,
    user,
  });
  return { user, session: session! };
}

describe(`the session service on its own (${backendLabel()})`, () => {
  it("creates a session that get-session answers with its user, lists it, and forgets it once revoked", async () => {
    const { user, session } = await signedIn();
    expect(session).toMatchObject({ userId: user.id, ipAddress: "198.51.100.7", userAgent: "harness" });
    expect(session.expiresAt!.getTime()).toBeGreaterThan(Date.now());

    const found = await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true });
    expect(found.session).toMatchObject({ id: session.id, userId: user.id });
    expect(found.user).toMatchObject({ id: user.id, name: "Ada", email: user.email, role: "user" });

    const second = await call(identity, identity.createSession, { userId: user.id, rememberMe: false, expiresInSeconds: 0, user });
    const listed = await call(gateway, gateway.listSessions, { userId: user.id, includeImpersonated: false });
    expect(listed.sessions.map((s) => s.id).sort()).toEqual([session.id, second.session!.id].sort());

    await call(gateway, gateway.revokeSession, { token: session.token, userId: user.id });
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).session).toBeUndefined();
    expect((await call(gateway, gateway.listSessions, { userId: user.id, includeImpersonated: false })).sessions.map((s) => s.id)).toEqual([second.session!.id]);
    // The store itself holds only the session that was not revoked.
    expect((await service.deps.store.listByUser(user.id)).map((s) => s.id)).toEqual([second.session!.id]);
  });

  it("serves the copy of the user identity last put, and no session once identity dropped the copy", async () => {
    const { user, session } = await signedIn();
    const renamed = { ...user, name: "Ada Lovelace", updatedAt: new Date(Date.now() + 1_000) };
    await call(identity, identity.forgetUser, { userId: user.id, user: renamed });
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).user).toMatchObject({ id: user.id, name: "Ada Lovelace" });

    await call(identity, identity.forgetUser, { userId: user.id });
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).user).toBeUndefined();
  });

  it("ends every session of a user on RevokeUserSessions, and sets the active organization only for organization", async () => {
    const { user, session } = await signedIn();
    const organization = service.clientAs(SessionServiceClient, "organization");
    await call(organization, organization.setActiveOrganization, { sessionId: session.id, organizationId: "org-1" });
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).session?.activeOrganizationId).toBe("org-1");
    expect(await peerCodeOf(call(gateway, gateway.setActiveOrganization, { sessionId: session.id, organizationId: "org-2" }))).toEqual(REFUSED);

    await call(gateway, gateway.revokeUserSessions, { userId: user.id });
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).session).toBeUndefined();
  });

  it("refuses callers outside the access table, and a user copy from anyone but identity, before anything happens", async () => {
    const { user, session } = await signedIn();
    expect(await peerCodeOf(call(gateway, gateway.createSession, { userId: user.id, rememberMe: true, expiresInSeconds: 0, user }))).toEqual(REFUSED);
    const ours = service.clientAs(SessionServiceClient, "internal-client");
    expect(await peerCodeOf(call(ours, ours.listSessions, { userId: user.id, includeImpersonated: false }))).toEqual(REFUSED);
    // Our users' services may validate a session, and nothing else.
    expect((await call(ours, ours.getSession, { token: session.token, disableRefresh: true })).session?.id).toBe(session.id);

    const admin = service.clientAs(SessionServiceClient, "admin");
    const planted = { ...user, role: "admin", updatedAt: new Date(Date.now() + 60_000) };
    expect(await peerCodeOf(call(admin, admin.revokeUserSessions, { userId: user.id, user: planted }))).toEqual(REFUSED);
    expect(service.logs).toContainEqual(
      expect.objectContaining({ msg: "call refused", method: "auth.session.v1.SessionService/RevokeUserSessions", caller: "admin", code: "CALLER_NOT_ALLOWED", field: "user" }),
    );
    // Refused before anything happened: the session lives on, its user as identity last said.
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).user).toMatchObject({ id: user.id, role: "user" });
  });
});

// One release carries the user twice (docs/adr/0047-one-user-message-between-releases.md): `user`
// (auth.common.v1.User) and the deprecated `sessionUser` (SessionUser, the previous release's numbers).
describe(`the user in both wire forms during a rolling upgrade (${backendLabel()})`, () => {
  it("serves a user that an identity replica of the previous release sent only as SessionUser", async () => {
    const user = userCopy({ username: "ada", displayUsername: "Ada", image: "https://example.com/a.png", extraFields: { plan: "pro" } });
    // What the previous release writes: the user at CreateSessionRequest's field 7, nothing at 8.
    const { session } = await call(identity, identity.createSession, { userId: user.id, rememberMe: true, expiresInSeconds: 0, sessionUser: user });
    const found = await call(gateway, gateway.getSession, { token: session!.token, disableRefresh: true });
    expect(found.user).toEqual(user);

    const renamed = { ...user, name: "Ada Lovelace", updatedAt: new Date(Date.now() + 1_000) };
    await call(identity, identity.putUserCopy, { sessionUser: renamed });
    expect((await call(gateway, gateway.getSession, { token: session!.token, disableRefresh: true })).user).toEqual(renamed);

    // The banned copy a ban hands over, in the old form: kept first, then every session ends.
    const banned = { ...renamed, banned: true, banReason: "spam", updatedAt: new Date(Date.now() + 2_000) };
    await call(identity, identity.revokeUserSessions, { userId: user.id, sessionUser: banned });
    expect((await call(gateway, gateway.getSession, { token: session!.token, disableRefresh: true })).session).toBeUndefined();
    expect(await service.deps.store.findUser(user.id)).toMatchObject({ name: "Ada Lovelace", banned: true, banReason: "spam" });
  });

  it("takes `user` when both forms come, and checks the old form as it checks the new", async () => {
    const user = userCopy();
    const { session } = await call(identity, identity.createSession, {
      userId: user.id,
      rememberMe: true,
      expiresInSeconds: 0,
      user,
      sessionUser: { ...user, name: "Not this one" },
    });
    expect((await call(gateway, gateway.getSession, { token: session!.token, disableRefresh: true })).user).toMatchObject({ name: "Ada" });

    expect(await peerCodeOf(call(identity, identity.createSession, { userId: user.id, rememberMe: true, expiresInSeconds: 0, sessionUser: userCopy() }))).toMatchObject({
      errorCode: "VALIDATION_ERROR",
    });
    // A copy of the user only identity may send is refused from anyone else in the old form too.
    const admin = service.clientAs(SessionServiceClient, "admin");
    const planted = { ...user, role: "admin", updatedAt: new Date(Date.now() + 60_000) };
    expect(await peerCodeOf(call(admin, admin.revokeUserSessions, { userId: user.id, sessionUser: planted }))).toEqual(REFUSED);
    expect((await call(gateway, gateway.getSession, { token: session!.token, disableRefresh: true })).user).toMatchObject({ id: user.id, role: "user" });
  });

  it("answers GetSession with the user in both forms, for a gateway or admin replica of the previous release", async () => {
    const { user, session } = await signedIn();
    const found = await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true });
    expect(found.user).toEqual(user);
    expect(found.sessionUser).toEqual(user);
  });

  it("names the caller by session for this release's gateway, and still by token for the previous release's", async () => {
    const { user, session } = await signedIn();
    const admin = service.clientAs(SessionServiceClient, "admin");
    const { session: impersonation } = await call(admin, admin.createSession, { userId: user.id, rememberMe: false, impersonatedBy: "admin-1", expiresInSeconds: 600, user });
    const caller = (s: { id: string }) => ({ sessionId: s.id, userId: user.id, email: user.email, emailVerified: true });
    // An impersonation session is shown handles, never the user's tokens, however its gateway names it.
    const byCaller = await call(gateway, gateway.listSessions, { userId: user.id, includeImpersonated: false, caller: caller(impersonation!) });
    const byToken = await call(gateway, gateway.listSessions, { userId: user.id, includeImpersonated: false, callerToken: impersonation!.token });
    for (const listed of [byCaller, byToken]) expect(listed.sessions.map((s) => s.token)).toEqual([expect.stringMatching(/^sh2\./)]);
    // ... and may not end the user's other sessions either way.
    for (const request of [{ caller: caller(impersonation!) }, { userId: user.id, keepToken: impersonation!.token }]) {
      expect(await peerCodeOf(call(gateway, gateway.revokeOtherSessions, request))).toMatchObject({ errorCode: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" });
    }
    // The user's own session lists the tokens, and ends the others, named either way.
    expect((await call(gateway, gateway.listSessions, { userId: user.id, includeImpersonated: false, callerToken: session.token })).sessions.map((s) => s.token)).toEqual([
      session.token,
    ]);
    await call(gateway, gateway.revokeOtherSessions, { userId: user.id, keepToken: session.token });
    expect((await call(gateway, gateway.getSession, { token: impersonation!.token, disableRefresh: true })).session).toBeUndefined();
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).session?.id).toBe(session.id);
  });

  it("RevokeUserSessions records the reason a service gives in session.revoked, and refuses one it does not know", async () => {
    const { user, session } = await signedIn();
    const refused = await peerCodeOf(call(identity, identity.revokeUserSessions, { userId: user.id, reason: "because" }));
    expect(refused.errorCode).toBe("VALIDATION_ERROR");
    expect((await call(gateway, gateway.getSession, { token: session.token, disableRefresh: true })).session?.id).toBe(session.id);
    await call(identity, identity.revokeUserSessions, { userId: user.id, reason: "password-changed" });
    const events = await service.deps.store.findSessionEvents(user.id);
    const revoked = events.filter((event) => event.type === "session.revoked").map((event) => JSON.parse(event.data) as unknown);
    // Published to a notification service that is not there: still held, with why.
    expect(revoked).toEqual([{ userId: user.id, sessionIds: [session.id], reason: "password-changed" }]);
  });
});
