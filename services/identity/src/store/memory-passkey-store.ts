/** The passkey part of the memory identity store. */
import { AuthError } from "@auth-platform/proto/errors";
import type { PasskeyChallengeRecord, PasskeyRecord, PasskeyStore } from "./passkey-store.js";

const copy = (record: PasskeyRecord): PasskeyRecord => ({ ...record, transports: [...record.transports] });

export function memoryPasskeyStore(): PasskeyStore & {
  clear(): void;
  deleteUserPasskeys(userId: string): void;
  /** Deletes one of the user's passkeys unless `keep` says it must stay (the identity store's deletePasskeyUnlessLast). */
  deletePasskeyUnless(userId: string, id: string, keep: (owned: number) => boolean): "deleted" | "last" | "not-found";
} {
  const passkeys = new Map<string, PasskeyRecord>();
  const challenges = new Map<string, PasskeyChallengeRecord>();
  const ofUser = (userId: string, id: string) => {
    const found = passkeys.get(id);
    return found?.userId === userId ? found : undefined;
  };
  return {
    async createPasskeyChallenge(record, now) {
      for (const [id, challenge] of challenges) if (challenge.expiresAt < now) challenges.delete(id);
      challenges.set(record.id, { ...record });
    },
    async takePasskeyChallenge(id) {
      const found = challenges.get(id);
      challenges.delete(id);
      return found ? { ...found } : null;
    },
    async createPasskey(record) {
      for (const passkey of passkeys.values()) if (passkey.credentialId === record.credentialId) throw new AuthError("PREVIOUSLY_REGISTERED");
      passkeys.set(record.id, copy(record));
    },
    async listPasskeys(userId) {
      return [...passkeys.values()]
        .filter((p) => p.userId === userId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        .map(copy);
    },
    async findPasskeyByCredentialId(credentialId) {
      for (const passkey of passkeys.values()) if (passkey.credentialId === credentialId) return copy(passkey);
      return null;
    },
    async renamePasskey(userId, id, name) {
      const found = ofUser(userId, id);
      if (!found) return null;
      found.name = name;
      return copy(found);
    },
    async advancePasskeyCounter(id, from, to) {
      const found = passkeys.get(id);
      if (!found || found.counter !== from) return false;
      found.counter = to;
      return true;
    },
    deletePasskeyUnless(userId, id, keep) {
      if (!ofUser(userId, id)) return "not-found";
      if (keep([...passkeys.values()].filter((p) => p.userId === userId).length)) return "last";
      passkeys.delete(id);
      return "deleted";
    },
    deleteUserPasskeys(userId) {
      for (const [id, passkey] of passkeys) if (passkey.userId === userId) passkeys.delete(id);
      for (const [id, challenge] of challenges) if (challenge.userId === userId) challenges.delete(id);
    },
    clear() {
      passkeys.clear();
      challenges.clear();
    },
  };
}
