/**
 * The SessionStore contract: one suite every backend must pass (docs/adr/0016-stores-migrations-and-tests.md).
 * The factory opens a fresh, migrated, empty store; the suite closes it when done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import type { JwtKeyRecord, SessionRecord, SessionStore } from "./session-store.js";

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const WEEK_MS = 7 * 86_400_000;

/** A session record with sensible defaults and exact-millisecond dates. */
export function aSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const createdAt = overrides.createdAt ?? new Date(T0);
  return {
    id: newId(),
    token: randomString(32),
    userId: newId(),
    expiresAt: new Date(createdAt.getTime() + WEEK_MS),
    ipAddress: "203.0.113.7",
    userAgent: "Mozilla/5.0 (contract test)",
    createdAt,
    updatedAt: createdAt,
    impersonatedBy: null,
    activeOrganizationId: null,
    activeTeamId: null,
    authMethod: "password",
    secondFactor: null,
    authenticatedAt: createdAt,
    ...overrides,
  };
}

/** A user copy as identity pushes it. */
export function aUserCopy(overrides: Partial<CachedUser> = {}): CachedUser {
  const at = new Date(T0).toISOString();
  return {
    id: newId(),
    name: "Ada Lovelace",
    email: `${newId().toLowerCase()}@example.com`,
    emailVerified: false,
    image: null,
    createdAt: at,
    updatedAt: at,
    username: null,
    displayUsername: null,
    extraFields: {},
    twoFactorEnabled: false,
    role: null,
    banned: false,
    banReason: null,
    banExpires: null,
    ...overrides,
  };
}

export function sessionStoreContract(backend: string, open: () => Promise<SessionStore>): void {
  describe(`SessionStore contract (${backend})`, () => {
    let store: SessionStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function created(overrides: Partial<SessionRecord> = {}) {
      const session = aSession(overrides);
      await store.create(session);
      return session;
    }

    it("creates a session and finds it by token, every field intact", async () => {
      const session = await created({
        impersonatedBy: newId(),
        activeOrganizationId: newId(),
        authMethod: "social:github",
        secondFactor: "totp",
        authenticatedAt: new Date(T0 - 1000),
      });
      expect(await store.findByToken(session.token)).toEqual(session);
      const bare = await created({ ipAddress: null, userAgent: null, authMethod: null, authenticatedAt: null });
      expect(await store.findByToken(bare.token)).toEqual(bare);
    });

    it("answers null for an unknown token", async () => {
      await created();
      expect(await store.findByToken(randomString(32))).toBeNull();
    });

    it("finds a session by id, every field intact; null for an unknown id", async () => {
      const session = await created({ impersonatedBy: newId(), activeOrganizationId: newId() });
      expect(await store.findById(session.id)).toEqual(session);
      expect(await store.findById(newId())).toBeNull();
    });

    it("round-trips dates to the exact millisecond", async () => {
      const session = await created({
        createdAt: new Date(Date.UTC(2023, 11, 31, 23, 59, 59, 999)),
        updatedAt: new Date(Date.UTC(2024, 1, 29, 0, 0, 0, 1)),
        expiresAt: new Date(Date.UTC(2030, 6, 15, 6, 30, 45, 501)),
      });
      const found = (await store.findByToken(session.token))!;
      expect(found.expiresAt).toBeInstanceOf(Date);
      expect(found.createdAt.getTime()).toBe(session.createdAt.getTime());
      expect(found.updatedAt.getTime()).toBe(session.updatedAt.getTime());
      expect(found.expiresAt.getTime()).toBe(session.expiresAt.getTime());
    });

    it("finds a session that has expired (expiry is the caller's business)", async () => {
      const session = await created({ expiresAt: new Date(Date.now() - 60_000) });
      expect(await store.findByToken(session.token)).toEqual(session);
    });

    it("lists a user's sessions oldest first, expired ones included, other users' left out", async () => {
      const userId = newId();
      const at = (ms: number) => new Date(T0 + ms);
      const middle = await created({ userId, createdAt: at(1_000) });
      const newest = await created({ userId, createdAt: at(2_000), expiresAt: new Date(Date.now() - 1_000) });
      const oldest = await created({ userId, createdAt: at(1) });
      await created({ createdAt: at(500) });
      const list = await store.listByUser(userId);
      expect(list.map((s) => s.token)).toEqual([oldest.token, middle.token, newest.token]);
      expect(list[0]).toEqual(oldest);
      expect(await store.listByUser(newId())).toEqual([]);
    });

    it("extend moves expiresAt and updatedAt and answers true", async () => {
      const session = await created();
      const expiresAt = new Date(Date.UTC(2031, 0, 1, 0, 0, 0, 321));
      const updatedAt = new Date(Date.UTC(2030, 11, 25, 0, 0, 0, 654));
      expect(await store.extend(session.token, expiresAt, updatedAt)).toBe(true);
      expect(await store.findByToken(session.token)).toEqual({ ...session, expiresAt, updatedAt });
    });

    it("extend answers true for a live session even when nothing changes", async () => {
      const session = await created();
      expect(await store.extend(session.token, session.expiresAt, session.updatedAt)).toBe(true);
    });

    it("extend answers false for a missing token and creates nothing", async () => {
      const token = randomString(32);
      expect(await store.extend(token, new Date(T0 + WEEK_MS), new Date(T0))).toBe(false);
      expect(await store.findByToken(token)).toBeNull();
    });

    it("deleteByTokens deletes exactly those sessions; missing tokens and an empty list are not errors", async () => {
      const userId = newId();
      const [a, b, c] = [await created({ userId }), await created({ userId }), await created({ userId })];
      await store.deleteByTokens([a.token, randomString(32), c.token]);
      expect(await store.findByToken(a.token)).toBeNull();
      expect(await store.findByToken(c.token)).toBeNull();
      expect(await store.findByToken(b.token)).toEqual(b);
      await store.deleteByTokens([a.token]);
      await store.deleteByTokens([]);
      expect((await store.listByUser(userId)).map((s) => s.token)).toEqual([b.token]);
    });

    it("finds nothing by a token's lookup hash or by another session's token (the lookup is keyed on the token)", async () => {
      const session = await created();
      const other = aSession({ id: `${session.id}x` });
      expect(await store.findByToken(other.token)).toBeNull();
      expect(await store.findByToken(session.token.toUpperCase())).toBeNull();
      expect(await store.findByToken(session.token.slice(1))).toBeNull();
    });

    it("revokePending deletes the sessions and records each revocation once; clearPending forgets exactly those", async () => {
      const userId = newId();
      const [a, b, kept] = [
        await created({ userId, expiresAt: new Date(T0 + WEEK_MS + 1) }),
        await created({ userId, expiresAt: new Date(T0 + WEEK_MS + 2) }),
        await created({ userId }),
      ];
      expect(await store.listPending(1)).toEqual([]);
      await store.revokePending(
        [a, b].map((s) => ({ token: s.token, expiresAt: s.expiresAt })),
        "sign-out",
      );
      expect(await store.findByToken(a.token)).toBeNull();
      expect(await store.findByToken(b.token)).toBeNull();
      expect((await store.listByUser(userId)).map((s) => s.token)).toEqual([kept.token]);
      expect(await store.listPending(1)).toHaveLength(1);
      // Recording one again (a retry, or a concurrent revoke) is not an error and adds nothing.
      await store.revokePending([{ token: a.token, expiresAt: a.expiresAt }], "sign-out");
      await store.revokePending([], "sign-out");
      const pending = await store.listPending(1_000);
      expect(pending.map((p) => p.expiresAt.getTime()).sort()).toEqual([a.expiresAt.getTime(), b.expiresAt.getTime()]);
      // Pending revocations name the lookup hash, never the token.
      expect(pending.every((p) => /^[A-Za-z0-9_-]{43}$/.test(p.lookup))).toBe(true);
      expect(pending.map((p) => p.lookup)).not.toContain(a.token);
      expect(await store.listPending(1)).toHaveLength(1);

      await store.clearPending(pending.map((p) => p.lookup).concat(["unknown"]));
      await store.clearPending([]);
      expect(await store.listPending(1_000)).toEqual([]);
      expect(await store.listPending(1)).toEqual([]);
      expect(await store.findByToken(kept.token)).toEqual(kept);
    });

    it("revokePending of sessions that are already gone still records them (the cache may hold a copy)", async () => {
      const gone = aSession();
      await store.revokePending([{ token: gone.token, expiresAt: gone.expiresAt }], "sign-out");
      const pending = await store.listPending(1_000);
      expect(pending).toHaveLength(1);
      expect(pending[0]!.expiresAt.getTime()).toBe(gone.expiresAt.getTime());
      await store.clearPending([pending[0]!.lookup]);
      expect(await store.listPending(1)).toEqual([]);
    });
    it("forgetPending records each forget once, by lookup hash; clearPendingForgets clears exactly those listed", async () => {
      const [a, b] = [await created(), await created()];
      const [lookupA, lookupB, lookupGone] = [randomString(43), randomString(43), randomString(43)];
      expect(await store.listPendingForgets(1)).toEqual([]);
      await store.forgetPending([lookupA, lookupB, lookupGone, lookupA]);
      await store.forgetPending([]);
      // The sessions themselves are left as they are.
      expect(await store.findByToken(a.token)).toEqual(a);
      const pending = await store.listPendingForgets(1_000);
      expect(pending.map((p) => p.lookup).sort()).toEqual([lookupA, lookupB, lookupGone].sort());
      expect(pending.every((p) => p.recordedAt instanceof Date)).toBe(true);
      expect(await store.listPendingForgets(1)).toHaveLength(1);

      await store.clearPendingForgets(pending.concat([{ lookup: "unknown", recordedAt: new Date() }]));
      await store.clearPendingForgets([]);
      expect(await store.listPendingForgets(1_000)).toEqual([]);
      expect(await store.findByToken(b.token)).toEqual(b);
    });

    it("a forget recorded again after it was listed survives the clear of the listed one (a later change is still to drop)", async () => {
      const lookup = randomString(43);
      await store.forgetPending([lookup]);
      const listed = await store.listPendingForgets(1_000);
      expect(listed).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.forgetPending([lookup]);
      await store.clearPendingForgets(listed);
      const again = await store.listPendingForgets(1_000);
      expect(again.map((p) => p.lookup)).toEqual([listed[0]!.lookup]);
      expect(again[0]!.recordedAt.getTime()).toBeGreaterThan(listed[0]!.recordedAt.getTime());
      await store.clearPendingForgets(again);
      expect(await store.listPendingForgets(1)).toEqual([]);
    });

    it("keeps a user copy, every field intact, and forgets it", async () => {
      const user = aUserCopy({
        image: "https://example.com/a.png",
        username: "ada",
        displayUsername: "Ada",
        emailVerified: true,
        extraFields: { plan: "pro", seats: 3, tags: ["a"], nested: { x: null } },
      });
      expect(await store.findUser(user.id)).toBeNull();
      await store.putUser(user);
      expect(await store.findUser(user.id)).toEqual(user);
      await store.deleteUser(user.id);
      expect(await store.findUser(user.id)).toBeNull();
      await store.deleteUser(user.id);
    });

    it("a user copy is replaced by a newer one only, never by an older or equally new one", async () => {
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      const user = aUserCopy({ updatedAt: at(2_000) });
      await store.putUser(user);
      await store.putUser({ ...user, name: "Older", updatedAt: at(1_999) });
      expect((await store.findUser(user.id))!.name).toBe("Ada Lovelace");
      // Identity gives every write of a user its own updatedAt: an equal one is that write's copy again, or
      // (were it different) one read before it, arriving late. Either way the kept copy stays.
      await store.putUser({ ...user, name: "Same instant, arriving late" });
      expect(await store.findUser(user.id)).toEqual(user);
      await store.putUser({ ...user, name: "Newer", updatedAt: at(2_001) });
      expect(await store.findUser(user.id)).toEqual({ ...user, name: "Newer", updatedAt: at(2_001) });
      // Concurrent writers converge on the newest, whatever order they land in.
      const copies = [5, 3, 9, 1, 7].map((ms) => ({ ...user, name: `v${ms}`, updatedAt: at(3_000 + ms) }));
      await Promise.all(copies.map((copy) => store.putUser(copy)));
      expect((await store.findUser(user.id))!.name).toBe("v9");
    });

    it("pages through the users with sessions but no copy, each once, by id", async () => {
      const prefix = newId();
      const [a, b, c, d] = ["a", "b", "c", "d"].map((suffix) => `${prefix}${suffix}`);
      await created({ userId: a });
      await created({ userId: a });
      await created({ userId: b });
      await created({ userId: c });
      await created({ userId: d });
      await store.putUser(aUserCopy({ id: b }));
      await store.putUser(aUserCopy({ id: `${prefix}e` }));
      expect(await store.usersMissingSnapshot(prefix, 2)).toEqual([a, c]);
      expect(await store.usersMissingSnapshot(c!, 1)).toEqual([d]);
      await store.putUser(aUserCopy({ id: c }));
      expect(await store.usersMissingSnapshot(prefix, 2)).toEqual([a, d]);
    });

    it("sets and clears one session's active organization by id, answering its token; a gone session answers null", async () => {
      const session = await created();
      const organizationId = newId();
      expect(await store.setActiveOrganization(session.id, organizationId)).toBe(session.token);
      expect((await store.findByToken(session.token))!.activeOrganizationId).toBe(organizationId);
      expect(await store.setActiveOrganization(session.id, null)).toBe(session.token);
      expect((await store.findByToken(session.token))!.activeOrganizationId).toBeNull();
      expect(await store.setActiveOrganization(randomString(32), organizationId)).toBeNull();
    });

    it("clears an active organization on every session that has it, or on one user's only", async () => {
      const organizationId = newId();
      const userId = newId();
      const mine = await created({ userId, activeOrganizationId: organizationId });
      const mineElsewhere = await created({ userId, activeOrganizationId: newId() });
      const theirs = await created({ activeOrganizationId: organizationId });
      expect(await store.clearActiveOrganization(organizationId, userId)).toEqual([mine.token]);
      expect((await store.findByToken(mine.token))!.activeOrganizationId).toBeNull();
      expect((await store.findByToken(mineElsewhere.token))!.activeOrganizationId).toBe(mineElsewhere.activeOrganizationId);
      expect((await store.findByToken(theirs.token))!.activeOrganizationId).toBe(organizationId);
      expect(await store.clearActiveOrganization(organizationId)).toEqual([theirs.token]);
      expect((await store.findByToken(theirs.token))!.activeOrganizationId).toBeNull();
      expect(await store.clearActiveOrganization(organizationId)).toEqual([]);
    });

    it("sets an active team with its organization, clears it alone, and a change of organization leaves no team", async () => {
      const session = await created();
      const [organizationId, teamId] = [newId(), newId()];
      const read = async () => {
        const found = (await store.findByToken(session.token))!;
        return [found.activeOrganizationId, found.activeTeamId];
      };
      expect(await store.setActiveTeam(session.id, { teamId, organizationId })).toBe(session.token);
      expect(await read()).toEqual([organizationId, teamId]);
      // The same organization again keeps the team; another one drops it.
      await store.setActiveOrganization(session.id, organizationId);
      expect(await read()).toEqual([organizationId, teamId]);
      await store.setActiveOrganization(session.id, newId());
      expect((await read())[1]).toBeNull();
      await store.setActiveTeam(session.id, { teamId, organizationId });
      expect(await store.setActiveTeam(session.id, null)).toBe(session.token);
      expect(await read()).toEqual([organizationId, null]);
      expect(await store.setActiveTeam(randomString(32), { teamId, organizationId })).toBeNull();
      // Clearing the organization clears its team.
      await store.setActiveTeam(session.id, { teamId, organizationId });
      await store.clearActiveOrganization(organizationId);
      expect(await read()).toEqual([null, null]);
    });

    it("clears an active team on every session that has it, or on one user's only", async () => {
      const [organizationId, teamId] = [newId(), newId()];
      const userId = newId();
      const mine = await created({ userId });
      const theirs = await created();
      const elsewhere = await created({ userId });
      await store.setActiveTeam(mine.id, { teamId, organizationId });
      await store.setActiveTeam(theirs.id, { teamId, organizationId });
      await store.setActiveTeam(elsewhere.id, { teamId: newId(), organizationId });
      expect(await store.clearActiveTeam(teamId, userId)).toEqual([mine.token]);
      expect((await store.findByToken(theirs.token))!.activeTeamId).toBe(teamId);
      expect(await store.clearActiveTeam(teamId)).toEqual([theirs.token]);
      expect((await store.findByToken(theirs.token))!).toMatchObject({ activeTeamId: null, activeOrganizationId: organizationId });
      expect((await store.findByToken(elsewhere.token))!.activeTeamId).not.toBeNull();
      expect(await store.clearActiveTeam(teamId)).toEqual([]);
    });

    it("remembers the organization last set active on a user's own session; a new session starts in it; null forgets it", async () => {
      const userId = newId();
      const [first, second] = [newId(), newId()];
      const old = await created({ userId });
      expect(await store.restoreActiveOrganization(old.id, userId)).toBeNull();
      expect((await store.findByToken(old.token))!.activeOrganizationId).toBeNull();
      await store.setActiveOrganization(old.id, first);
      await store.setActiveOrganization(old.id, second);
      const next = await created({ userId });
      expect(await store.restoreActiveOrganization(next.id, userId)).toBe(second);
      expect((await store.findByToken(next.token))!.activeOrganizationId).toBe(second);
      // Another user's sessions start as they were.
      const other = await created();
      expect(await store.restoreActiveOrganization(other.id, other.userId)).toBeNull();
      await store.setActiveOrganization(next.id, null);
      const third = await created({ userId });
      expect(await store.restoreActiveOrganization(third.id, userId)).toBeNull();
      expect((await store.findByToken(third.token))!.activeOrganizationId).toBeNull();
    });

    it("an impersonation session's choice is not remembered for the user", async () => {
      const userId = newId();
      const own = await created({ userId });
      const chosen = newId();
      await store.setActiveOrganization(own.id, chosen);
      const impersonation = await created({ userId, impersonatedBy: newId() });
      expect(await store.restoreActiveOrganization(impersonation.id, userId)).toBe(chosen);
      await store.setActiveOrganization(impersonation.id, newId());
      await store.setActiveOrganization(impersonation.id, null);
      const next = await created({ userId });
      expect(await store.restoreActiveOrganization(next.id, userId)).toBe(chosen);
    });

    it("clearing an organization forgets it as the remembered one (of one user, or of everyone); deleting the user forgets theirs", async () => {
      const organizationId = newId();
      const [ada, bob, cy] = [newId(), newId(), newId()];
      for (const userId of [ada, bob]) await store.setActiveOrganization((await created({ userId })).id, organizationId);
      const elsewhere = newId();
      await store.setActiveOrganization((await created({ userId: cy })).id, elsewhere);
      const restored = async (userId: string) => store.restoreActiveOrganization((await created({ userId })).id, userId);
      await store.clearActiveOrganization(organizationId, ada);
      expect(await restored(ada)).toBeNull();
      expect(await restored(bob)).toBe(organizationId);
      await store.clearActiveOrganization(organizationId);
      expect(await restored(bob)).toBeNull();
      expect(await restored(cy)).toBe(elsewhere);
      await store.deleteUser(cy);
      expect(await restored(cy)).toBeNull();
    });

    it("a session starting while its organization is cleared never keeps it (ten concurrent pairs)", async () => {
      const attempts = Array.from({ length: 10 }, async () => {
        const userId = newId();
        const organizationId = newId();
        await store.setActiveOrganization((await created({ userId })).id, organizationId);
        const starting = await created({ userId });
        await Promise.all([store.clearActiveOrganization(organizationId, userId), store.restoreActiveOrganization(starting.id, userId)]);
        return (await store.findByToken(starting.token))!.activeOrganizationId;
      });
      expect(await Promise.all(attempts)).toEqual(Array(10).fill(null));
    });

    function aJwtKey(slot: string, publishedUntil: Date, signsFrom = new Date(T0)): JwtKeyRecord {
      return {
        kid: newId(),
        slot,
        algorithm: "EdDSA",
        publicJwk: JSON.stringify({ kty: "OKP", crv: "Ed25519", x: randomString(43) }),
        privateKeySealed: `jk1.${randomString(200)}`,
        createdAt: new Date(T0),
        signsFrom,
        signsUntil: new Date(signsFrom.getTime() + 3_600_000),
        publishedFrom: new Date(T0 - 1000),
        publishedUntil,
      };
    }

    it("keeps one signing key per slot: of concurrent adds one wins, and every caller gets it", async () => {
      const slot = `EdDSA:3600:${newId()}`;
      const candidates = Array.from({ length: 5 }, () => aJwtKey(slot, new Date(T0 + WEEK_MS)));
      const kept = await Promise.all(candidates.map((key) => store.addJwtKey(key)));
      expect(new Set(kept.map((key) => key.kid)).size).toBe(1);
      const winner = candidates.find((key) => key.kid === kept[0]!.kid);
      expect(kept[0]).toEqual(winner);
      expect(await store.findJwtKey(slot)).toEqual(winner);
      expect(await store.findJwtKey(`EdDSA:3600:${newId()}`)).toBeNull();
    });

    it("lists the keys still published, oldest first, and deletes those no longer published", async () => {
      const at = new Date(T0 + 100 * WEEK_MS);
      const gone = await store.addJwtKey(aJwtKey(newId(), at));
      const later = await store.addJwtKey(aJwtKey(newId(), new Date(at.getTime() + 2000), new Date(T0 + 7200_000)));
      const earlier = await store.addJwtKey(aJwtKey(newId(), new Date(at.getTime() + 1000), new Date(T0 + 3600_000)));
      const listed = (await store.listJwtKeys(at)).filter((key) => [gone.kid, later.kid, earlier.kid].includes(key.kid));
      expect(listed.map((key) => key.kid)).toEqual([earlier.kid, later.kid]);
      await store.deleteJwtKeys(new Date(at.getTime() + 1000));
      expect(await store.findJwtKey(gone.slot)).toBeNull();
      expect(await store.findJwtKey(earlier.slot)).toBeNull();
      expect(await store.findJwtKey(later.slot)).toEqual(later);
    });

    describe("the webhook event outbox", () => {
      const payload = (event: { data: string }) => JSON.parse(event.data) as Record<string, unknown>;
      const drain = async (userId: string) => {
        await store.deleteSessionEvents((await store.findSessionEvents(userId)).map((event) => event.id));
      };

      it("writes session.created with the session, public fields only", async () => {
        const session = await created({ authMethod: "passkey", secondFactor: "totp" });
        const events = await store.findSessionEvents(session.userId);
        expect(events.map((event) => event.type)).toEqual(["session.created"]);
        expect(events[0]!.attempts).toBe(0);
        expect(events[0]!.leaseUntil).toBeNull();
        expect(payload(events[0]!)).toEqual({
          session: {
            id: session.id,
            userId: session.userId,
            authMethod: "passkey",
            secondFactor: "totp",
            impersonatedBy: null,
            createdAt: session.createdAt.toISOString(),
            expiresAt: session.expiresAt.toISOString(),
            ipAddress: session.ipAddress,
            userAgent: session.userAgent,
          },
        });
        expect(events[0]!.data).not.toContain(session.token);
        await drain(session.userId);
      });

      it("writes one session.revoked per revocation with the ids it deleted and why; a cleanup or a session already gone writes none", async () => {
        const a = await created();
        const b = await created({ userId: a.userId, createdAt: new Date(T0 + 1000) });
        const c = await created({ userId: a.userId, createdAt: new Date(T0 + 2000) });
        await drain(a.userId);
        await store.deleteByTokens([a.token, b.token], "revoke-sessions");
        let events = await store.findSessionEvents(a.userId);
        expect(events.map((event) => [event.type, payload(event)])).toEqual([["session.revoked", { userId: a.userId, sessionIds: [a.id, b.id], reason: "revoke-sessions" }]]);
        await drain(a.userId);
        await store.deleteByTokens([a.token], "sign-out");
        await store.revokePending([{ token: b.token, expiresAt: b.expiresAt }], "banned");
        expect(await store.findSessionEvents(a.userId)).toEqual([]);
        await store.revokePending([{ token: c.token, expiresAt: c.expiresAt }], "banned");
        events = await store.findSessionEvents(a.userId);
        expect(events.map((event) => payload(event))).toEqual([{ userId: a.userId, sessionIds: [c.id], reason: "banned" }]);
        await drain(a.userId);
        await store.clearPending((await store.listPending(1000)).map((p) => p.lookup));
        const expired = await created();
        await drain(expired.userId);
        await store.deleteByTokens([expired.token]);
        expect(await store.findSessionEvents(expired.userId)).toEqual([]);
      });

      it("leases events to one deliverer at a time, in one claim for a batch, retries them later, and removes them", async () => {
        const session = await created();
        const other = await created();
        const [event] = await store.findSessionEvents(session.userId);
        const [second] = await store.findSessionEvents(other.userId);
        const ids = [event!.id, second!.id];
        const at = (seconds: number) => new Date(Math.max(event!.nextAttemptAt.getTime(), second!.nextAttemptAt.getTime()) + seconds * 1000);
        const mine = async (when: Date) => (await store.findDueSessionEvents(when, 1000)).filter((due) => ids.includes(due.id));
        expect(await mine(new Date(event!.nextAttemptAt.getTime() - 1))).toEqual([]);
        expect(await mine(at(0))).toHaveLength(2);
        // Five replicas claim the batch at once: each event goes to one of them, its attempt counted once.
        const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimSessionEvents([...ids, "no-such-event"], at(0), at(60))));
        expect(claims.flat().sort()).toEqual([...ids].sort());
        expect(await mine(at(30))).toEqual([]);
        expect(await store.claimSessionEvents(ids, at(30), at(90))).toEqual([]);
        // One is retried later; the other's lease runs out unreleased (its deliverer died), so it is due again.
        await store.retrySessionEvent(event!.id, 1, at(100));
        expect((await mine(at(99))).map((due) => due.id)).toEqual([second!.id]);
        expect((await mine(at(100))).find((due) => due.id === event!.id)).toMatchObject({ attempts: 1, leaseUntil: null, nextAttemptAt: at(100) });
        expect(await store.claimSessionEvents([event!.id], at(99), at(159))).toEqual([]);
        expect((await store.claimSessionEvents(ids, at(100), at(160))).sort()).toEqual([...ids].sort());
        expect((await store.findSessionEvents(session.userId))[0]).toMatchObject({ attempts: 2, leaseUntil: at(160) });
        await store.deleteSessionEvents(ids);
        expect(await store.findSessionEvents(session.userId)).toEqual([]);
        expect(await store.findSessionEvents(other.userId)).toEqual([]);
        await store.deleteSessionEvents([...ids, "no-such-event"]);
        await store.deleteSessionEvents([]);
        expect(await store.claimSessionEvents([], at(200), at(260))).toEqual([]);
      });
    });
  });
}
