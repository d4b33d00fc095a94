/**
 * The mailed codes part of the IdentityStore contract, run on memory, SQLite and PostgreSQL: one code per
 * purpose and address, tries counted up to the allowance even when they race, a code used at most once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { EmailCodeRecord } from "./email-code-store.js";
import type { IdentityStore } from "./identity-store.js";

const AT = new Date(Date.UTC(2031, 0, 1, 12, 0, 0, 123));
let counter = 0;

const aCode = (overrides: Partial<EmailCodeRecord> = {}): EmailCodeRecord => ({
  id: newId(),
  purpose: "sign-in",
  email: `code-${Date.now().toString(36)}-${++counter}@example.com`,
  codeHash: "keyed-hash-of-the-code",
  attempts: 0,
  expiresAt: new Date(AT.getTime() + 300_000),
  createdAt: AT,
  ...overrides,
});

export function emailCodeStoreContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`IdentityStore mailed codes (${backend})`, () => {
    let store: IdentityStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("keeps one code per purpose and address: a newer one replaces the older, other purposes stay", async () => {
      const first = aCode();
      const reset = aCode({ email: first.email, purpose: "forget-password" });
      await store.putEmailCode(first);
      await store.putEmailCode(reset);
      expect(await store.findEmailCode("sign-in", first.email)).toEqual(first);
      const second = aCode({ email: first.email, codeHash: "another" });
      await store.putEmailCode(second);
      expect(await store.findEmailCode("sign-in", first.email)).toEqual(second);
      expect(await store.findEmailCode("forget-password", first.email)).toEqual(reset);
      expect(await store.findEmailCode("email-verification", first.email)).toBeNull();
      // The replaced code's id counts nothing and deletes nothing.
      expect(await store.countEmailCodeAttempt(first.id, 3)).toBe(false);
      expect(await store.deleteEmailCode(first.id)).toBe(false);
    });

    it("counts tries up to the allowance, racing ones included, and gives one back", async () => {
      const code = aCode();
      await store.putEmailCode(code);
      const counted = await Promise.all(Array.from({ length: 6 }, () => store.countEmailCodeAttempt(code.id, 3)));
      expect(counted.filter(Boolean)).toHaveLength(3);
      expect((await store.findEmailCode("sign-in", code.email))!.attempts).toBe(3);
      expect(await store.countEmailCodeAttempt(code.id, 3)).toBe(false);
      await store.uncountEmailCodeAttempt(code.id);
      expect((await store.findEmailCode("sign-in", code.email))!.attempts).toBe(2);
      expect(await store.countEmailCodeAttempt(code.id, 3)).toBe(true);
    });

    it("deletes a code for one caller only", async () => {
      const code = aCode({ purpose: "email-verification" });
      await store.putEmailCode(code);
      const deleted = await Promise.all(Array.from({ length: 4 }, () => store.deleteEmailCode(code.id)));
      expect(deleted.filter(Boolean)).toHaveLength(1);
      expect(await store.findEmailCode("email-verification", code.email)).toBeNull();
    });
  });
}
