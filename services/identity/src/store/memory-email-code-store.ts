/** The mailed codes part of the memory identity store. */
import type { EmailCodeRecord, EmailCodeStore } from "./email-code-store.js";

export function memoryEmailCodeStore(): EmailCodeStore & { clear(): void } {
  const codes = new Map<string, EmailCodeRecord>();
  const byId = (id: string) => [...codes.values()].find((code) => code.id === id);
  const key = (purpose: string, email: string) => `${purpose}\n${email}`;
  return {
    async putEmailCode(record) {
      codes.set(key(record.purpose, record.email), { ...record });
    },
    async findEmailCode(purpose, email) {
      const found = codes.get(key(purpose, email));
      return found ? { ...found } : null;
    },
    async countEmailCodeAttempt(id, allowed) {
      const found = byId(id);
      if (!found || found.attempts >= allowed) return false;
      found.attempts += 1;
      return true;
    },
    async uncountEmailCodeAttempt(id) {
      const found = byId(id);
      if (found && found.attempts > 0) found.attempts -= 1;
    },
    async deleteEmailCode(id) {
      const found = byId(id);
      return found ? codes.delete(key(found.purpose, found.email)) : false;
    },
    clear() {
      codes.clear();
    },
  };
}
