/**
 * Identity on its own (testing/service-harness.ts), with a fake session service that records what identity
 * sends it: every user identity hands over (a new session's, a changed user's, a banned user's) goes in both
 * wire forms of this release, `user` (auth.common.v1.User) and the deprecated `sessionUser`, which is all a
 * session replica of the previous release reads during a rolling upgrade
 * (docs/adr/0047-one-user-message-between-releases.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { CreateSessionRequest, PutUserCopyRequest, RevokeUserSessionsRequest } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import type { ServiceUnderTest } from "../../../testing/service-harness.js";
import type { Registry } from "../src/domain/ports.js";
import { type IdentityAlone, startIdentityAlone } from "./identity-alone.js";

const created: CreateSessionRequest[] = [];
const puts: PutUserCopyRequest[] = [];
const revocations: RevokeUserSessionsRequest[] = [];

let identity: IdentityAlone;
let service: ServiceUnderTest<Registry>;

beforeAll(async () => {
  identity = await startIdentityAlone({
    createSession: (req: CreateSessionRequest) => {
      created.push(req);
      const at = new Date();
      return { session: { id: newId(), token: newId(), userId: req.userId, expiresAt: new Date(at.getTime() + 3_600_000), createdAt: at, updatedAt: at } };
    },
    putUserCopy: (req: PutUserCopyRequest) => {
      puts.push(req);
      return {};
    },
    revokeUserSessions: (req: RevokeUserSessionsRequest) => {
      revocations.push(req);
      return {};
    },
  });
  service = identity.service;
});
afterAll(async () => {
  await identity?.stop();
});

describe(`identity hands the session service each user in both wire forms (${backendLabel()})`, () => {
  it("with a new session, a changed user and a ban", async () => {
    const gateway = service.clientAs(IdentityServiceClient, "gateway");
    const admin = service.clientAs(AdminUserServiceClient, "admin");
    const email = `ada-${newId().toLowerCase()}@example.com`;
    const { user } = await call(gateway, gateway.signUpEmail, { name: "Ada", email, password: "password-123", rememberMe: true, client: {} });
    const signedUp = created.find((req) => req.userId === user!.id);
    expect(signedUp?.user).toMatchObject({ id: user!.id, name: "Ada", email });
    expect(signedUp?.sessionUser).toEqual(signedUp?.user);

    // A change reaches the session service from identity's outbox (ADR 0045), once it is stored.
    await call(admin, admin.setRole, { userId: user!.id, role: "admin" });
    const put = await eventually(async () => {
      const found = puts.find((req) => req.user?.id === user!.id && req.user.role === "admin");
      expect(found).toBeDefined();
      return found!;
    });
    expect(put.sessionUser).toEqual(put.user);

    await call(admin, admin.banUser, { userId: user!.id, reason: "spam", expiresInSeconds: "0" });
    const ban = await eventually(async () => {
      const found = revocations.find((req) => req.userId === user!.id && req.user?.banned);
      expect(found).toBeDefined();
      return found!;
    });
    expect(ban.user).toMatchObject({ id: user!.id, banned: true, banReason: "spam" });
    expect(ban.sessionUser).toEqual(ban.user);
  });
});
