/**
 * The passkey part of the IdentityStore contract, run on memory, SQLite and PostgreSQL: credential ids unique
 * across users, each user's passkeys their own, challenges taken once under races, counters that only move
 * from the value read, and what deleting the user removes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { IdentityStore } from "./identity-store.js";
import { aUser, anAccount } from "./identity-store.contract.js";
import type { PasskeyChallengeRecord, PasskeyRecord } from "./passkey-store.js";

const AT = new Date(Date.UTC(2031, 0, 1, 12, 0, 0, 123));
const later = (ms: number) => new Date(AT.getTime() + ms);

const aPasskey = (userId: string, overrides: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
  id: newId(),
  userId,
  name: null,
  credentialId: newId(),
  publicKey: "pQECAyYgASFYIA",
  counter: 0,
  deviceType: "multiDevice",
  backedUp: true,
  transports: ["internal", "hybrid"],
  aaguid: "00000000-0000-0000-0000-000000000000",
  createdAt: AT,
  ...overrides,
});

const aCeremony = (overrides: Partial<PasskeyChallengeRecord> = {}): PasskeyChallengeRecord => ({
  id: newId(),
  kind: "authentication",
  challenge: "c2lnbi1tZS1pbg",
  userId: null,
  sessionId: null,
  expiresAt: later(300_000),
  createdAt: AT,
  ...overrides,
});

export function passkeyStoreContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`IdentityStore passkey contract (${backend})`, () => {
    let store: IdentityStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function aUserId() {
      const user = aUser();
      await store.createUserWithAccount(user, anAccount(user));
      return user.id;
    }

    it("stores passkeys with every field, lists them oldest first, finds one by credential id", async () => {
      const userId = await aUserId();
      const first = aPasskey(userId, { counter: 4_000_000_000, transports: [] });
      const second = aPasskey(userId, { name: "Laptop", createdAt: later(1_000), deviceType: "singleDevice", backedUp: false, aaguid: null });
      await store.createPasskey(second);
      await store.createPasskey(first);
      expect(await store.listPasskeys(userId)).toEqual([first, second]);
      expect(await store.findPasskeyByCredentialId(second.credentialId)).toEqual(second);
      expect(await store.findPasskeyByCredentialId("unknown")).toBeNull();
      expect(await store.listPasskeys(await aUserId())).toEqual([]);
    });

    it("refuses a credential id stored before, whoever stored it (PREVIOUSLY_REGISTERED)", async () => {
      const passkey = aPasskey(await aUserId());
      await store.createPasskey(passkey);
      await expect(store.createPasskey(aPasskey(await aUserId(), { credentialId: passkey.credentialId }))).rejects.toMatchObject({ code: "PREVIOUSLY_REGISTERED" });
    });

    it("renames and deletes only the user's own passkey", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      const passkey = aPasskey(userId);
      await store.createPasskey(passkey);
      expect(await store.renamePasskey(other, passkey.id, "Mine now")).toBeNull();
      expect(await store.renamePasskey(userId, passkey.id, "Phone")).toEqual({ ...passkey, name: "Phone" });
      expect(await store.deletePasskeyUnlessLast(other, passkey.id)).toBe("not-found");
      expect(await store.listPasskeys(userId)).toHaveLength(1);
      // The user has an account (a password): the last passkey may go.
      expect(await store.deletePasskeyUnlessLast(userId, passkey.id)).toBe("deleted");
      expect(await store.deletePasskeyUnlessLast(userId, passkey.id)).toBe("not-found");
      expect(await store.listPasskeys(userId)).toEqual([]);
    });

    it("keeps the last passkey of a user without an account, even against deletions racing", async () => {
      const user = aUser();
      await store.createUserWithAccount(user, null);
      const passkeys = [aPasskey(user.id), aPasskey(user.id), aPasskey(user.id)];
      for (const passkey of passkeys) await store.createPasskey(passkey);
      const outcomes = await Promise.all(passkeys.map((passkey) => store.deletePasskeyUnlessLast(user.id, passkey.id)));
      expect(outcomes.sort()).toEqual(["deleted", "deleted", "last"]);
      expect(await store.listPasskeys(user.id)).toHaveLength(1);
    });

    it("moves a counter only from the value read: of racing moves from the same value, one wins", async () => {
      const passkey = aPasskey(await aUserId(), { counter: 7 });
      await store.createPasskey(passkey);
      const raced = await Promise.all([
        store.advancePasskeyCounter(passkey.id, 7, 8),
        store.advancePasskeyCounter(passkey.id, 7, 8),
        store.advancePasskeyCounter(passkey.id, 7, 9),
      ]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store.advancePasskeyCounter(passkey.id, 7, 10)).toBe(false);
      const counter = (await store.findPasskeyByCredentialId(passkey.credentialId))!.counter;
      expect([8, 9]).toContain(counter);
      expect(await store.advancePasskeyCounter(passkey.id, counter, 0)).toBe(true);
    });

    it("a challenge is taken once, even under a race; expired ones go when a new one is stored", async () => {
      const userId = await aUserId();
      const ceremony = aCeremony({ kind: "registration", userId, sessionId: "session-1" });
      await store.createPasskeyChallenge(ceremony, AT);
      const raced = await Promise.all([store.takePasskeyChallenge(ceremony.id), store.takePasskeyChallenge(ceremony.id), store.takePasskeyChallenge(ceremony.id)]);
      expect(raced.filter(Boolean)).toEqual([ceremony]);
      expect(await store.takePasskeyChallenge(ceremony.id)).toBeNull();

      const stale = aCeremony({ expiresAt: later(1_000) });
      await store.createPasskeyChallenge(stale, AT);
      await store.createPasskeyChallenge(aCeremony(), later(2_000));
      expect(await store.takePasskeyChallenge(stale.id)).toBeNull();
    });

    it("deleting the user deletes the user's passkeys and ceremonies, and no one else's", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      const passkey = aPasskey(userId);
      const kept = aPasskey(other);
      const ceremony = aCeremony({ kind: "registration", userId, sessionId: "s" });
      await store.createPasskey(passkey);
      await store.createPasskey(kept);
      await store.createPasskeyChallenge(ceremony, AT);
      await store.deleteUserAndAccounts(userId);
      expect(await store.findPasskeyByCredentialId(passkey.credentialId)).toBeNull();
      expect(await store.takePasskeyChallenge(ceremony.id)).toBeNull();
      expect(await store.listPasskeys(other)).toEqual([kept]);
    });
  });
}
