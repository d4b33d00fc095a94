/** The passkey part of the identity store on MikroORM (SQLite or PostgreSQL). */
import { AuthError } from "@auth-platform/proto/errors";
import { isUniqueViolation, type Store } from "@auth-platform/runtime/store";
import { PasskeyChallengeEntity, type PasskeyChallengeRow, PasskeyEntity, type PasskeyRow } from "./entities.js";
import type { PasskeyChallengeRecord, PasskeyDeviceType, PasskeyRecord, PasskeyStore } from "./passkey-store.js";

export const PASSKEY_ENTITIES = [PasskeyEntity, PasskeyChallengeEntity];

const toPasskey = (row: PasskeyRow): PasskeyRecord => ({
  id: row.id,
  userId: row.userId,
  name: row.name ?? null,
  credentialId: row.credentialId,
  publicKey: row.publicKey,
  counter: Number(row.counter),
  deviceType: row.deviceType as PasskeyDeviceType,
  backedUp: Boolean(row.backedUp),
  transports: row.transports ? row.transports.split(",") : [],
  aaguid: row.aaguid ?? null,
  createdAt: row.createdAt,
});

const toChallenge = (row: PasskeyChallengeRow): PasskeyChallengeRecord => ({
  id: row.id,
  kind: row.kind as PasskeyChallengeRecord["kind"],
  challenge: row.challenge,
  userId: row.userId ?? null,
  sessionId: row.sessionId ?? null,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
});

export function mikroPasskeyStore(store: Store): PasskeyStore {
  return {
    async createPasskeyChallenge(record, now) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(PasskeyChallengeEntity, { expiresAt: { $lt: now } });
        await em.insert(PasskeyChallengeEntity, record);
      });
    },
    async takePasskeyChallenge(id) {
      const em = store.em();
      const row = await em.findOne(PasskeyChallengeEntity, { id });
      if (!row) return null;
      // Read, then deleted by one DELETE: of two requests racing with the same attempt, only one deletes it.
      return (await em.nativeDelete(PasskeyChallengeEntity, { id })) > 0 ? toChallenge(row) : null;
    },
    async createPasskey(record) {
      try {
        await store.em().insert(PasskeyEntity, { ...record, transports: record.transports.join(",") });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError("PREVIOUSLY_REGISTERED");
        throw error;
      }
    },
    async listPasskeys(userId) {
      const rows = await store.em().find(PasskeyEntity, { userId }, { orderBy: { createdAt: "asc", id: "asc" } });
      return rows.map(toPasskey);
    },
    async findPasskeyByCredentialId(credentialId) {
      const row = await store.em().findOne(PasskeyEntity, { credentialId });
      return row ? toPasskey(row) : null;
    },
    async renamePasskey(userId, id, name) {
      const em = store.em();
      if ((await em.nativeUpdate(PasskeyEntity, { id, userId }, { name })) === 0) return null;
      const row = await em.findOne(PasskeyEntity, { id }, { refresh: true });
      return row ? toPasskey(row) : null;
    },
    async advancePasskeyCounter(id, from, to) {
      return (await store.em().nativeUpdate(PasskeyEntity, { id, counter: from }, { counter: to })) === 1;
    },
  };
}
