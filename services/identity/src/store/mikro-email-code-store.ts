/** The mailed codes part of the identity store on MikroORM (SQLite or PostgreSQL). */
import type { Store } from "@auth-platform/runtime/store";
import type { EmailCodePurpose, EmailCodeRecord, EmailCodeStore } from "./email-code-store.js";
import { EmailCodeEntity, type EmailCodeRow } from "./entities.js";

const toEmailCode = (row: EmailCodeRow): EmailCodeRecord => ({
  id: row.id,
  purpose: row.purpose as EmailCodePurpose,
  email: row.email,
  codeHash: row.codeHash,
  attempts: row.attempts,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
});

export function mikroEmailCodeStore(store: Store): EmailCodeStore {
  return {
    async putEmailCode(record) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(EmailCodeEntity, { purpose: record.purpose, email: record.email });
        await em.insert(EmailCodeEntity, record);
      });
    },
    async findEmailCode(purpose, email) {
      const row = await store.em().findOne(EmailCodeEntity, { purpose, email });
      return row ? toEmailCode(row) : null;
    },
    async countEmailCodeAttempt(id, allowed) {
      const row = await store.em().findOne(EmailCodeEntity, { id });
      if (!row || row.attempts >= allowed) return false;
      // Conditional on the count read: of racing tries at the same count only one is counted, the others retry.
      const updated = await store.em().nativeUpdate(EmailCodeEntity, { id, attempts: row.attempts }, { attempts: row.attempts + 1 });
      return updated === 1 ? true : this.countEmailCodeAttempt(id, allowed);
    },
    async uncountEmailCodeAttempt(id) {
      const row = await store.em().findOne(EmailCodeEntity, { id });
      if (!row || row.attempts === 0) return;
      const updated = await store.em().nativeUpdate(EmailCodeEntity, { id, attempts: row.attempts }, { attempts: row.attempts - 1 });
      if (updated !== 1) await this.uncountEmailCodeAttempt(id);
    },
    async deleteEmailCode(id) {
      return (await store.em().nativeDelete(EmailCodeEntity, { id })) > 0;
    },
  };
}
