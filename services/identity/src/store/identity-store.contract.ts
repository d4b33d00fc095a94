/**
 * The IdentityStore contract: one suite every backend must pass (docs/adr/0016-stores-migrations-and-tests.md).
 * The factory opens a fresh, migrated, empty store; the suite closes it when done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { type AccountRecord, CREDENTIAL_PROVIDER, type IdentityStore, USER_WRITES, type UserRecord, WRITER_DELIVERY_MS } from "./identity-store.js";

let counter = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}`;

/** A user record with sensible defaults and exact-millisecond dates. */
export function aUser(overrides: Partial<UserRecord> = {}): UserRecord {
  const at = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
  return {
    id: newId(),
    name: "Ada Lovelace",
    email: `${unique("ada")}@example.com`,
    emailVerified: false,
    image: null,
    createdAt: at,
    updatedAt: at,
    username: null,
    displayUsername: null,
    role: null,
    banned: false,
    banReason: null,
    banExpires: null,
    extraFields: {},
    twoFactorEnabled: false,
    ...overrides,
  };
}

/** The credential account of a user. */
export function anAccount(user: Pick<UserRecord, "id" | "createdAt">, overrides: Partial<AccountRecord> = {}): AccountRecord {
  return {
    id: newId(),
    accountId: user.id,
    providerId: CREDENTIAL_PROVIDER,
    userId: user.id,
    password: "73616c74:68617368",
    scope: null,
    createdAt: user.createdAt,
    updatedAt: user.createdAt,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    ...overrides,
  };
}

async function expectAuthError(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected AuthError ${code}`).toBeInstanceOf(AuthError);
  expect((error as AuthError).code).toBe(code);
}

/** The clock every backend under the contract stamps updatedAt with (wired in identity-store.test.ts). */
export const contractClock = { at: Date.UTC(2031, 0, 1), now: () => new Date(contractClock.at) };

export function identityStoreContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`IdentityStore contract (${backend})`, () => {
    let store: IdentityStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function created(overrides: Partial<UserRecord> = {}) {
      const user = aUser(overrides);
      const account = anAccount(user);
      expect(await store.createUserWithAccount(user, account)).toEqual(user);
      return { user, account };
    }

    it("creates a user with its account, found by id, email and username", async () => {
      const username = unique("ada").toLowerCase();
      const { user } = await created({ username, displayUsername: username.toUpperCase() });
      expect(await store.findUserById(user.id)).toEqual(user);
      expect(await store.findUserByEmail(user.email)).toEqual(user);
      expect(await store.findUserByUsername(username)).toEqual(user);
    });

    it("creates a user with no account (an admin's user without a password); the email stays taken", async () => {
      const user = aUser();
      expect(await store.createUserWithAccount(user, null)).toEqual(user);
      expect(await store.findUserByEmail(user.email)).toEqual(user);
      expect(await store.listAccounts(user.id)).toEqual([]);
      await expectAuthError(store.createUserWithAccount(aUser({ email: user.email }), null), "USER_ALREADY_EXISTS");
    });

    it("finds several users at once by id or email, unknown ones left out", async () => {
      const { user: a } = await created();
      const { user: b } = await created();
      const { user: c } = await created();
      const found = await store.findUsers([a.id, newId()], [b.email, `${unique("nobody")}@example.com`]);
      expect(found.map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
      expect(found.find((u) => u.id === a.id)).toEqual(a);
      expect(found.some((u) => u.id === c.id)).toBe(false);
      expect(await store.findUsers([], [])).toEqual([]);
    });

    it("answers null for an unknown id, email or username", async () => {
      await created();
      expect(await store.findUserById(newId())).toBeNull();
      expect(await store.findUserByEmail(`${unique("nobody")}@example.com`)).toBeNull();
      expect(await store.findUserByUsername(unique("nobody"))).toBeNull();
    });

    it("refuses a second user with the same email: USER_ALREADY_EXISTS, no user and no orphan account", async () => {
      const { user } = await created();
      const clash = aUser({ email: user.email });
      await expectAuthError(store.createUserWithAccount(clash, anAccount(clash)), "USER_ALREADY_EXISTS");
      expect(await store.findUserById(clash.id)).toBeNull();
      expect(await store.findAccount(clash.id, CREDENTIAL_PROVIDER)).toBeNull();
      expect(await store.findUserByEmail(user.email)).toEqual(user);
    });

    it("an email clash is USER_ALREADY_EXISTS even when both users have (different) usernames", async () => {
      const { user } = await created({ username: unique("first").toLowerCase() });
      const clash = aUser({ email: user.email, username: unique("second").toLowerCase() });
      await expectAuthError(store.createUserWithAccount(clash, anAccount(clash)), "USER_ALREADY_EXISTS");
      expect(await store.findUserById(clash.id)).toBeNull();
      expect(await store.findUserByUsername(clash.username!)).toBeNull();
      expect(await store.findAccount(clash.id, CREDENTIAL_PROVIDER)).toBeNull();
    });

    it("refuses a taken username: USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER, no user and no orphan account", async () => {
      const username = unique("taken").toLowerCase();
      const { user } = await created({ username });
      const clash = aUser({ username });
      await expectAuthError(store.createUserWithAccount(clash, anAccount(clash)), "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
      expect(await store.findUserById(clash.id)).toBeNull();
      expect(await store.findUserByEmail(clash.email)).toBeNull();
      expect(await store.findAccount(clash.id, CREDENTIAL_PROVIDER)).toBeNull();
      expect(await store.findUserByUsername(username)).toEqual(user);
    });

    it("finds a user's account by provider, and null for a provider it has not linked", async () => {
      const { user, account } = await created();
      expect(await store.findAccount(user.id, CREDENTIAL_PROVIDER)).toEqual(account);
      expect(await store.findAccount(user.id, "github")).toBeNull();
      expect(await store.findAccount(newId(), CREDENTIAL_PROVIDER)).toBeNull();
    });

    it("updateUser applies the patch, leaves other fields alone and bumps updatedAt", async () => {
      const { user } = await created({ role: "user", extraFields: { plan: "free" } });
      const banExpires = new Date(Date.UTC(2031, 5, 7, 8, 9, 10, 123));
      contractClock.at += 60_000;
      const updated = await store.updateUser(user.id, { name: "Ada King", emailVerified: true, banned: true, banReason: "spam", banExpires });
      expect(updated).toEqual({
        ...user,
        name: "Ada King",
        emailVerified: true,
        banned: true,
        banReason: "spam",
        banExpires,
        updatedAt: new Date(contractClock.at),
      });
      expect(await store.findUserById(user.id)).toEqual(updated);

      const cleared = await store.updateUser(user.id, { banned: false, banReason: null, banExpires: null, image: "https://example.com/a.png" });
      expect(cleared).toMatchObject({ banned: false, banReason: null, banExpires: null, image: "https://example.com/a.png", name: "Ada King" });
      expect(await store.findUserById(user.id)).toEqual(cleared);
    });

    it("markEmailVerified changes an unverified user still at that address, once", async () => {
      const { user } = await created({ emailVerified: false });
      contractClock.at += 60_000;
      expect(await store.markEmailVerified(user.id, `other-${user.email}`)).toBeNull();
      const [first, second] = await Promise.all([store.markEmailVerified(user.id, user.email), store.markEmailVerified(user.id, user.email)]);
      expect([first, second].filter(Boolean)).toEqual([{ ...user, emailVerified: true, updatedAt: new Date(contractClock.at) }]);
      expect(await store.markEmailVerified(user.id, user.email)).toBeNull();
      expect(await store.findUserById(user.id)).toMatchObject({ emailVerified: true });
    });

    it("every write of a user gets an updatedAt past the one before, also with the clock standing still", async () => {
      // The session service keeps the copy with the newest updatedAt: two writes sharing one would let the
      // copy of the earlier write, arriving last, stay (docs/adr/0004-session-service-keeps-user-copies.md).
      const at = new Date(contractClock.at);
      const { user } = await created({ emailVerified: false, updatedAt: at });
      const stamps = [
        (await store.updateUser(user.id, { name: "First" }))!.updatedAt,
        (await store.updateUser(user.id, { extraFields: { plan: "pro" } }))!.updatedAt,
        (await store.markEmailVerified(user.id, user.email))!.updatedAt,
      ];
      await store.saveTwoFactor({ userId: user.id, secret: "sealed", verified: false, lastTotpStep: null, createdAt: at, updatedAt: at }, []);
      await store.activateTwoFactor(user.id, at);
      stamps.push((await store.findUserById(user.id))!.updatedAt);
      await store.deleteTwoFactor(user.id);
      stamps.push((await store.findUserById(user.id))!.updatedAt);
      expect(stamps.map((stamp) => stamp.getTime() - at.getTime())).toEqual([1, 2, 3, 4, 5]);
    });

    it("concurrent updates of one user in one millisecond each get their own updatedAt, the last read back the newest", async () => {
      const at = new Date(contractClock.at);
      const { user } = await created({ updatedAt: at });
      const writes = 8;
      const results = await Promise.all(Array.from({ length: writes }, (_, i) => store.updateUser(user.id, { name: `Writer ${i}` })));
      const stored = (await store.findUserById(user.id))!;
      // Each write moved it on by exactly 1 ms from the one before: no two shared a value.
      expect(stored.updatedAt.getTime() - at.getTime()).toBe(writes);
      const newest = results.reduce((a, b) => (a!.updatedAt > b!.updatedAt ? a : b))!;
      expect(newest).toEqual(stored);
      // No read back older than its own write.
      for (const result of results) expect(result!.updatedAt.getTime()).toBeGreaterThan(at.getTime());
    });

    it("updateUser answers null for an unknown id", async () => {
      expect(await store.updateUser(newId(), { name: "Nobody" })).toBeNull();
    });

    it("updateUser to a taken username raises USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER and changes nothing", async () => {
      const taken = unique("owner").toLowerCase();
      await created({ username: taken });
      const { user } = await created({ username: unique("other").toLowerCase() });
      await expectAuthError(store.updateUser(user.id, { username: taken }), "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
      expect(await store.findUserById(user.id)).toEqual(user);
    });

    it("round-trips dates to the exact millisecond", async () => {
      const createdAt = new Date(Date.UTC(2023, 11, 31, 23, 59, 59, 999));
      const updatedAt = new Date(Date.UTC(2024, 1, 29, 12, 0, 0, 1));
      const banExpires = new Date(Date.UTC(2030, 6, 15, 6, 30, 45, 501));
      const { user, account } = await created({ createdAt, updatedAt, banned: true, banExpires });
      const found = (await store.findUserById(user.id))!;
      expect(found.createdAt).toBeInstanceOf(Date);
      expect(found.createdAt.getTime()).toBe(createdAt.getTime());
      expect(found.updatedAt.getTime()).toBe(updatedAt.getTime());
      expect(found.banExpires!.getTime()).toBe(banExpires.getTime());
      const foundAccount = (await store.findAccount(user.id, CREDENTIAL_PROVIDER))!;
      expect(foundAccount.createdAt.getTime()).toBe(account.createdAt.getTime());

      const later = new Date(Date.UTC(2032, 2, 3, 4, 5, 6, 789));
      expect((await store.updateUser(user.id, { banExpires: later }))!.banExpires!.getTime()).toBe(later.getTime());
      expect((await store.findUserById(user.id))!.banExpires!.getTime()).toBe(later.getTime());
    });

    it("round-trips extraFields as JSON, on create and on update", async () => {
      const extraFields = { plan: "pro", seats: 12, ratio: 0.25, beta: true, none: null, tags: ["a", "b"], nested: { lang: "fr", note: 'café ✓ "quoted"' } };
      const { user } = await created({ extraFields });
      expect((await store.findUserById(user.id))!.extraFields).toEqual(extraFields);
      // Merged: named fields replaced whole (no deep merge), a null removes one, the others kept.
      const next = { plan: "team", seats: 12, ratio: 0.25, beta: true, none: null, nested: { lang: "de", none: null } };
      expect((await store.updateUser(user.id, { extraFields: { plan: "team", tags: null, nested: { lang: "de", none: null } } }))!.extraFields).toEqual(next);
      expect((await store.findUserById(user.id))!.extraFields).toEqual(next);
    });

    it("keeps both of two concurrent updates of different extra fields of one user, and of an extra field and the name", async () => {
      const { user } = await created({ extraFields: { plan: "free", locale: "en" } });
      const racing = Array.from({ length: 8 }, (_, i) => (i % 2 ? { extraFields: { plan: `plan-${i}` } } : { extraFields: { seats: i } }));
      await Promise.all(racing.map((patch) => store.updateUser(user.id, patch)));
      expect((await store.findUserById(user.id))!.extraFields).toMatchObject({ plan: expect.stringMatching(/^plan-/), seats: expect.any(Number), locale: "en" });

      await Promise.all([store.updateUser(user.id, { name: "Countess" }), store.updateUser(user.id, { extraFields: { beta: true } })]);
      const found = (await store.findUserById(user.id))!;
      expect(found.name).toBe("Countess");
      expect(found.extraFields).toMatchObject({ beta: true, locale: "en", seats: expect.any(Number) });
    });

    it("lists accounts oldest first, adds one, refuses a second link of the same provider account, deletes one", async () => {
      const { user, account } = await created();
      const later = new Date(user.createdAt.getTime() + 1_000);
      const github = anAccount(user, { providerId: "github", accountId: unique("gh"), password: null, scope: "read:user", createdAt: later, updatedAt: later });
      await store.createAccount(github);
      expect((await store.listAccounts(user.id)).map((a) => a.id)).toEqual([account.id, github.id]);
      expect((await store.listAccounts(user.id))[1]!.scope).toBe("read:user");
      await expectAuthError(store.createAccount({ ...github, id: newId() }), "SOCIAL_ACCOUNT_ALREADY_LINKED");
      await store.deleteAccount(github.id);
      expect((await store.listAccounts(user.id)).map((a) => a.id)).toEqual([account.id]);
      expect(await store.listAccounts("nobody")).toEqual([]);
    });

    it("deletes an account unless it is the user's last, also when two deletions race", async () => {
      const { user, account } = await created();
      const github = anAccount(user, { providerId: "github", accountId: unique("gh"), password: null });
      await store.createAccount(github);
      expect(await store.deleteAccountUnlessLast("another-user", github.id)).toBe(false);
      const results = await Promise.all([store.deleteAccountUnlessLast(user.id, account.id), store.deleteAccountUnlessLast(user.id, github.id)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const [left] = await store.listAccounts(user.id);
      expect(await store.listAccounts(user.id)).toHaveLength(1);
      expect(await store.deleteAccountUnlessLast(user.id, left!.id)).toBe(false);
      expect(await store.listAccounts(user.id)).toHaveLength(1);
    });

    it("finds a provider's account by its account id and replaces its tokens", async () => {
      const { user } = await created();
      const github = anAccount(user, { providerId: "github", accountId: unique("gh"), password: null, accessToken: "sealed-a", refreshToken: "sealed-r" });
      await store.createAccount(github);
      expect(await store.findAccountByProvider("github", github.accountId)).toEqual(github);
      expect(await store.findAccountByProvider("github", "nobody")).toBeNull();
      expect(await store.findAccountByProvider("gitlab", github.accountId)).toBeNull();
      const expiresAt = new Date(user.createdAt.getTime() + 3_600_000);
      const patch = { accessToken: "sealed-b", refreshToken: null, idToken: "sealed-i", accessTokenExpiresAt: expiresAt, refreshTokenExpiresAt: null, scope: "read:user" };
      expect(await store.updateAccountTokens(github.id, patch)).toBe(true);
      expect(await store.findAccountByProvider("github", github.accountId)).toMatchObject(patch);
      expect(await store.updateAccountTokens("missing", patch)).toBe(false);
    });

    it("sets an account's password, and says false for a missing account", async () => {
      const { user, account } = await created();
      expect(await store.setAccountPassword(account.id, "aa:bb")).toBe(true);
      contractClock.at += 60_000;
      expect(await store.setAccountPassword(account.id, "aa:bb")).toBe(true);
      expect(await store.findAccount(user.id, CREDENTIAL_PROVIDER)).toMatchObject({ password: "aa:bb", updatedAt: new Date(contractClock.at) });
      expect(await store.setAccountPassword("missing", "aa:bb")).toBe(false);
    });

    it("deletes a user with every account, and deleting again is not an error", async () => {
      const { user } = await created();
      await store.createAccount(anAccount(user, { providerId: "github", accountId: unique("gh") }));
      await store.deleteUserAndAccounts(user.id);
      expect(await store.findUserById(user.id)).toBeNull();
      expect(await store.listAccounts(user.id)).toEqual([]);
      await store.deleteUserAndAccounts(user.id);
    });

    it("finds the newest verification record for an identifier, and consumes it exactly once", async () => {
      const identifier = unique("reset-password:tok");
      const at = (ms: number) => new Date(Date.UTC(2025, 5, 1, 0, 0, 0, ms));
      const older = { id: newId(), identifier, value: "u1", expiresAt: at(900), createdAt: at(100), updatedAt: at(100) };
      const newer = { id: newId(), identifier, value: "u2", expiresAt: at(950), createdAt: at(200), updatedAt: at(200) };
      await store.createVerification(older);
      await store.createVerification(newer);
      expect(await store.findVerification(identifier)).toEqual(newer);
      expect(await store.findVerification(unique("other"))).toBeNull();
      const consumed = await Promise.all([store.consumeVerification(newer.id), store.consumeVerification(newer.id)]);
      expect(consumed.sort()).toEqual([false, true]);
      expect(await store.findVerification(identifier)).toEqual(older);
    });

    it("deletes a user's verification records of one kind only", async () => {
      const at = new Date(Date.UTC(2025, 5, 1));
      const record = (identifier: string, value: string) => ({ id: newId(), identifier, value, expiresAt: at, createdAt: at, updatedAt: at });
      const user = newId();
      const mine = [record(unique("reset-password:a"), user), record(unique("reset-password:b"), user)];
      const otherKind = record(unique("delete-account:c"), user);
      const otherUser = record(unique("reset-password:d"), newId());
      for (const r of [...mine, otherKind, otherUser]) await store.createVerification(r);
      expect(await store.deleteVerifications("reset-password:", user)).toBe(2);
      for (const r of mine) expect(await store.findVerification(r.identifier)).toBeNull();
      expect(await store.findVerification(otherKind.identifier)).toEqual(otherKind);
      expect(await store.findVerification(otherUser.identifier)).toEqual(otherUser);
      await expect(store.deleteVerifications("reset%", user)).rejects.toThrow(/plain/);
    });

    it("queues mail requests, leases each to one worker, retries and deletes them", async () => {
      const at = (s: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, s));
      const early = {
        id: newId(),
        kind: "password-reset" as const,
        email: `${unique("a")}@example.com`,
        callbackUrl: "/reset",
        language: "de" as const,
        nextAttemptAt: at(0),
        createdAt: at(0),
      };
      const late = {
        id: newId(),
        kind: "magic-link" as const,
        email: `${unique("b")}@example.com`,
        callbackUrl: null,
        language: null,
        // A link's name and other callback URLs come back as they went in.
        details: { name: "Ada", newUserCallbackUrl: "https://app.example.com/welcome" },
        nextAttemptAt: at(5),
        createdAt: at(5),
      };
      await store.enqueueMailRequest(late);
      await store.enqueueMailRequest(early);
      const mine = (list: Array<{ id: string }>) => list.map((r) => r.id).filter((id) => id === early.id || id === late.id);
      expect(mine(await store.findDueMailRequests(at(5), 100))).toEqual([early.id, late.id]);
      expect((await store.findDueMailRequests(at(5), 100)).find((r) => r.id === early.id)).toEqual({ ...early, attempts: 0, leaseUntil: null });
      expect((await store.findDueMailRequests(at(5), 100)).find((r) => r.id === late.id)).toEqual({ ...late, attempts: 0, leaseUntil: null });
      expect(mine(await store.findDueMailRequests(at(4), 100))).toEqual([early.id]);

      const wins = await Promise.all(Array.from({ length: 5 }, () => store.claimMailRequest(early.id, 0, at(5), at(65))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(mine(await store.findDueMailRequests(at(10), 100))).toEqual([late.id]);
      // A lease that ran out is taken over, at the attempt count seen.
      expect(await store.claimMailRequest(early.id, 0, at(70), at(130))).toBe(false);
      expect(await store.claimMailRequest(early.id, 1, at(70), at(130))).toBe(true);
      await store.retryMailRequest(early.id, 2, at(200));
      expect((await store.findDueMailRequests(at(200), 100)).find((r) => r.id === early.id)).toMatchObject({ attempts: 2, leaseUntil: null, nextAttemptAt: at(200) });
      await store.deleteMailRequest(early.id);
      await store.deleteMailRequest(late.id);
      expect(mine(await store.findDueMailRequests(at(1000), 100))).toEqual([]);
    });

    /** Each write of a user (USER_WRITES) run on a fresh user, with the option that makes it end the sessions. */
    const userWrites: Record<(typeof USER_WRITES)[number], (user: UserRecord, account: AccountRecord) => Promise<unknown>> = {
      updateUser: (user) => store.updateUser(user.id, { name: "Changed" }),
      markEmailVerified: (user) => store.markEmailVerified(user.id, user.email),
      deleteUserAndAccounts: (user) => store.deleteUserAndAccounts(user.id),
      activateTwoFactor: async (user) => {
        const at = contractClock.now();
        await store.saveTwoFactor({ userId: user.id, secret: "sealed", verified: false, lastTotpStep: null, createdAt: at, updatedAt: at }, []);
        await store.activateTwoFactor(user.id, at);
      },
      deleteTwoFactor: (user) => store.deleteTwoFactor(user.id),
      queueSessionRevocation: (user) => store.queueSessionRevocation(user.id),
      setAccountPassword: (user, account) => store.setAccountPassword(account.id, "new-hash", { revokeSessionsOf: user.id }),
      createAccount: (user) => store.createAccount(anAccount(user, { providerId: "github", accountId: unique("gh") }), { revokeSessions: true }),
    };
    /**
     * Every other method of the store, none of which changes a user: a new method must be put in one list or
     * the other, so a new way to write a user cannot skip the session outbox unnoticed.
     */
    const CHANGES_NO_USER = [
      // Creating a user: a new user has no session; the first CreateSession carries the copy.
      "createUserWithAccount",
      "findUserById",
      "findUsers",
      // The last sign-in is no field of the user record: updatedAt stays and the copies do not move.
      "recordSignIn",
      "findUserByEmail",
      "findUserByUsername",
      "findAccount",
      "listUsers",
      "findAccountByProvider",
      "updateAccountTokens",
      "listAccounts",
      "deleteAccount",
      "deleteAccountUnlessLast",
      "createVerification",
      "findVerification",
      "consumeVerification",
      "deleteVerifications",
      "enqueueMailRequest",
      "findDueMailRequests",
      "claimMailRequest",
      "retryMailRequest",
      "deleteMailRequest",
      // Mailed codes are keyed by address, not user.
      "putEmailCode",
      "findEmailCode",
      "countEmailCodeAttempt",
      "uncountEmailCodeAttempt",
      "deleteEmailCode",
      "findSessionOutbox",
      "findDueSessionOutbox",
      "claimSessionOutbox",
      "retrySessionOutbox",
      "clearSessionOutbox",
      // The user event outbox: written by the user writes themselves, read and cleared by its deliverer.
      "findUserEvents",
      "findDueUserEvents",
      "claimUserEvent",
      "retryUserEvent",
      "deleteUserEvent",
      "saveTwoFactor",
      "findTwoFactor",
      "resealTwoFactor",
      "useTotpStep",
      "replaceBackupCodes",
      "useBackupCode",
      "countBackupCodes",
      "createChallenge",
      "findChallenge",
      "countChallengeAttempt",
      "countUserChallengeAttempts",
      "setChallengeOtp",
      "consumeChallenge",
      "deleteUserChallenges",
      "createTrustedDevice",
      "findTrustedDevice",
      "renewTrustedDevice",
      "listTrustedDevices",
      "deleteTrustedDevice",
      "deleteTrustedDevices",
      // Passkeys are no field of the user record: the session service's copy does not carry them.
      "createPasskeyChallenge",
      "takePasskeyChallenge",
      "createPasskey",
      "listPasskeys",
      "findPasskeyByCredentialId",
      "renamePasskey",
      "deletePasskeyUnlessLast",
      "advancePasskeyCounter",
      "createApiKey",
      "findApiKey",
      "findApiKeyByHash",
      "listApiKeys",
      "updateApiKey",
      "deleteApiKey",
      "deleteExpiredApiKeys",
      "deleteOrganizationApiKeys",
      // A sign-in failure burst's event: a row of the user event outbox, no change of the user.
      "addUserEvent",
      "hitApiKeyRateLimit",
      "recordApiKeyUses",
      "close",
    ];

    it("names every method either a write of a user (USER_WRITES) or one that changes no user", () => {
      const methods = Object.keys(store).sort();
      expect(methods).toEqual([...USER_WRITES, ...CHANGES_NO_USER].sort());
    });

    it.each(USER_WRITES)("%s writes the user's session outbox row with it", async (method) => {
      const { user, account } = await created();
      expect(await store.findSessionOutbox(user.id)).toBeNull();
      await userWrites[method](user, account);
      const row = await store.findSessionOutbox(user.id);
      expect(row).toMatchObject({ userId: user.id, attempts: 0, leaseUntil: null });
      // Left to the writing request first: the worker finds it due only once that request had its chance.
      const dueAt = (ms: number) => store.findDueSessionOutbox(new Date(contractClock.at + ms), 1000);
      expect((await dueAt(WRITER_DELIVERY_MS - 1)).some((due) => due.userId === user.id)).toBe(false);
      expect((await dueAt(WRITER_DELIVERY_MS)).some((due) => due.userId === user.id)).toBe(true);
      // Those that end the sessions (a deletion, a revocation, a password reset) say so.
      const revokes = ["deleteUserAndAccounts", "queueSessionRevocation", "setAccountPassword", "createAccount"].includes(method);
      expect(row!.revokeSessions).toBe(revokes);
      await store.clearSessionOutbox(user.id, row!.version);
    });

    it("keeps one row a user: each write moves its version, a revocation is never dropped, and only the version read is cleared", async () => {
      const { user } = await created();
      const at = (seconds: number) => new Date(contractClock.at + seconds * 1000);
      await store.updateUser(user.id, { name: "One" }, { revokeSessions: true });
      const first = (await store.findSessionOutbox(user.id))!;
      await store.updateUser(user.id, { name: "Two" });
      const second = (await store.findSessionOutbox(user.id))!;
      expect(second.version).toBeGreaterThan(first.version);
      expect(second.revokeSessions).toBe(true);
      expect(await store.clearSessionOutbox(user.id, first.version)).toBe(false);

      const wins = await Promise.all(Array.from({ length: 5 }, () => store.claimSessionOutbox(user.id, second.version, at(0), at(60))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect((await store.findDueSessionOutbox(at(10), 1000)).some((row) => row.userId === user.id)).toBe(false);
      await store.retrySessionOutbox(user.id, at(100));
      expect(await store.findSessionOutbox(user.id)).toMatchObject({ attempts: 1, leaseUntil: null, nextAttemptAt: at(100) });
      expect((await store.findDueSessionOutbox(at(99), 1000)).some((row) => row.userId === user.id)).toBe(false);
      expect((await store.findDueSessionOutbox(at(100), 1000)).some((row) => row.userId === user.id)).toBe(true);
      expect(await store.clearSessionOutbox(user.id, second.version)).toBe(true);
      expect(await store.findSessionOutbox(user.id)).toBeNull();
    });

    describe("user events", () => {
      // The email-verified events; the webhook events every write adds have their own test below.
      const verifiedEvents = async (userId: string) => (await store.findUserEvents(userId)).filter((event) => event.type === "email-verified");
      const types = async (userId: string) => (await verifiedEvents(userId)).map((event) => `${event.type} ${event.payload.email}`);
      const clear = async (userId: string) => {
        for (const event of await store.findUserEvents(userId)) await store.deleteUserEvent(event.id);
      };

      it("writes email-verified with a user created verified, and none with one created unverified", async () => {
        const verified = await created({ emailVerified: true });
        const events = await verifiedEvents(verified.user.id);
        expect(events).toEqual([
          {
            id: expect.any(String),
            userId: verified.user.id,
            type: "email-verified",
            payload: { email: verified.user.email },
            occurredAt: contractClock.now(),
            attempts: 0,
            nextAttemptAt: new Date(contractClock.at + WRITER_DELIVERY_MS),
            leaseUntil: null,
          },
        ]);
        const unverified = await created();
        expect(await verifiedEvents(unverified.user.id)).toEqual([]);
      });

      it("writes a webhook event with every creation, update, ban, unban and deletion, holding the user as written", async () => {
        const { user } = await created();
        const webhookEvents = async () => {
          const events = (await store.findUserEvents(user.id)).filter((event) => event.type.startsWith("user."));
          for (const event of events) await store.deleteUserEvent(event.id);
          return events.map((event) => ({ type: event.type, user: (JSON.parse(event.payload.data!) as { user: Record<string, unknown> }).user }));
        };
        expect(await webhookEvents()).toEqual([{ type: "user.created", user: expect.objectContaining({ id: user.id, email: user.email, banned: false }) }]);
        await store.updateUser(user.id, { name: "Renamed" });
        expect(await webhookEvents()).toEqual([{ type: "user.updated", user: expect.objectContaining({ id: user.id, name: "Renamed" }) }]);
        await store.updateUser(user.id, { banned: true, banReason: "spam" });
        expect(await webhookEvents()).toEqual([{ type: "user.banned", user: expect.objectContaining({ banned: true, banReason: "spam" }) }]);
        await store.updateUser(user.id, { banned: false, banReason: null });
        expect(await webhookEvents()).toEqual([{ type: "user.unbanned", user: expect.objectContaining({ banned: false }) }]);
        await store.markEmailVerified(user.id, user.email);
        expect(await webhookEvents()).toEqual([{ type: "user.updated", user: expect.objectContaining({ emailVerified: true }) }]);
        await store.deleteUserAndAccounts(user.id);
        expect(await webhookEvents()).toEqual([{ type: "user.deleted", user: expect.objectContaining({ id: user.id, name: "Renamed", email: user.email }) }]);
        expect(await store.updateUser(user.id, { name: "Gone" })).toBeNull();
        expect(await webhookEvents()).toEqual([]);
      });

      it("adds an event under its id once, due after the writer's turn", async () => {
        const { user } = await created();
        for (const event of await store.findUserEvents(user.id)) await store.deleteUserEvent(event.id);
        const at = new Date(Date.UTC(2031, 0, 1));
        const event = { id: newId(), userId: user.id, type: "user.sign_in_failed_burst" as const, payload: { data: '{"failures":5}' }, occurredAt: at };
        await store.addUserEvent(event);
        await store.addUserEvent({ ...event, payload: { data: "{}" } });
        expect(await store.findUserEvents(user.id)).toEqual([{ ...event, attempts: 0, nextAttemptAt: new Date(at.getTime() + WRITER_DELIVERY_MS), leaseUntil: null }]);
      });

      it("writes email-verified when an address becomes verified, and only then", async () => {
        const { user } = await created();
        await store.updateUser(user.id, { name: "No address" });
        expect(await types(user.id)).toEqual([]);
        await store.markEmailVerified(user.id, user.email);
        expect(await types(user.id)).toEqual([`email-verified ${user.email}`]);
        await clear(user.id);
        // Verified again, or a patch that keeps the verified address: nothing new.
        expect(await store.markEmailVerified(user.id, user.email)).toBeNull();
        await store.updateUser(user.id, { emailVerified: true, name: "Same" });
        expect(await types(user.id)).toEqual([]);
        // Moved to a new address, unverified: nothing; then verified by a patch: the new address.
        const moved = `${unique("moved")}@example.com`;
        await store.updateUser(user.id, { email: moved, emailVerified: false });
        expect(await types(user.id)).toEqual([]);
        await store.updateUser(user.id, { emailVerified: true });
        expect(await types(user.id)).toEqual([`email-verified ${moved}`]);
        await clear(user.id);
        // Moved straight to another verified address (a verified email change).
        const again = `${unique("again")}@example.com`;
        await store.updateUser(user.id, { email: again, emailVerified: true });
        expect(await types(user.id)).toEqual([`email-verified ${again}`]);
        await clear(user.id);
        expect(await store.updateUser("nobody", { emailVerified: true })).toBeNull();
        expect(await store.findUserEvents("nobody")).toEqual([]);
      });

      it("leases an event to one deliverer, retries it when asked, and removes it once delivered", async () => {
        const { user } = await created({ emailVerified: true });
        const [event] = await verifiedEvents(user.id);
        const at = (seconds: number) => new Date(contractClock.at + seconds * 1000);
        const mine = async (when: Date) => (await store.findDueUserEvents(when, 1000)).filter((due) => due.id === event!.id);
        expect(await mine(at(WRITER_DELIVERY_MS / 1000 - 1))).toEqual([]);
        expect(await mine(at(WRITER_DELIVERY_MS / 1000))).toHaveLength(1);
        const wins = await Promise.all(Array.from({ length: 5 }, () => store.claimUserEvent(event!.id, 0, at(0), at(60))));
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect(await mine(at(59))).toEqual([]);
        await store.retryUserEvent(event!.id, 1, at(100));
        expect((await verifiedEvents(user.id))[0]).toMatchObject({ attempts: 1, leaseUntil: null, nextAttemptAt: at(100) });
        expect(await mine(at(99))).toEqual([]);
        expect(await mine(at(100))).toHaveLength(1);
        await store.deleteUserEvent(event!.id);
        expect(await verifiedEvents(user.id)).toEqual([]);
      });
    });

    it("two writes of one user at once both reach the outbox", async () => {
      const { user } = await created();
      await Promise.all([store.updateUser(user.id, { name: "A" }), store.updateUser(user.id, { image: "https://example.com/a.png" })]);
      expect((await store.findSessionOutbox(user.id))!.version).toBeGreaterThanOrEqual(2);
    });
  });
}
