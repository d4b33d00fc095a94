/** The DomainStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { newId } from "@auth-platform/runtime/random";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainRecord, DomainStore } from "../domains/domain-claims.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

export function aDomainClaim(overrides: Partial<DomainRecord> = {}): DomainRecord {
  return {
    id: newId(),
    organizationId: newId(),
    domain: `${newId().toLowerCase()}.example.com`,
    token: "tok-0123456789abcdefghijklmnopqrstu",
    createdAt: at(0),
    expiresAt: at(86_400_000),
    verifiedAt: null,
    autoJoinRole: null,
    autoJoinSince: null,
    ...overrides,
  };
}

export function domainStoreContract(backend: string, open: () => Promise<DomainStore & { close(): Promise<void> }>): void {
  describe(`DomainStore contract (${backend})`, () => {
    let store: DomainStore & { close(): Promise<void> };
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("stores a claim and reads it back by id and by organization and domain", async () => {
      const claim = aDomainClaim();
      expect(await store.insertDomain(claim)).toBe(true);
      expect(await store.findDomain(claim.id)).toEqual(claim);
      expect(await store.findDomainClaim(claim.organizationId, claim.domain)).toEqual(claim);
      expect(await store.findDomainClaim(newId(), claim.domain)).toBeUndefined();
      expect(await store.findVerifiedDomain(claim.domain)).toBeUndefined();
      expect(await store.findDomain("nothing")).toBeUndefined();
    });

    it("keeps one claim of a domain per organization, and lets several organizations claim it", async () => {
      const claim = aDomainClaim();
      expect(await store.insertDomain(claim)).toBe(true);
      expect(await store.insertDomain(aDomainClaim({ organizationId: claim.organizationId, domain: claim.domain }))).toBe(false);
      expect(await store.insertDomain(aDomainClaim({ domain: claim.domain }))).toBe(true);
    });

    it("lists an organization's claims by domain, and no one else's", async () => {
      const organizationId = newId();
      const b = aDomainClaim({ organizationId, domain: `b-${newId().toLowerCase()}.example.com` });
      const a = aDomainClaim({ organizationId, domain: `a-${newId().toLowerCase()}.example.com` });
      await store.insertDomain(b);
      await store.insertDomain(a);
      await store.insertDomain(aDomainClaim());
      expect(await store.listDomains(organizationId)).toEqual([a, b]);
    });

    it("verifies one claim of a domain only: a second organization's stays unverified", async () => {
      const first = aDomainClaim();
      const second = aDomainClaim({ domain: first.domain });
      await store.insertDomain(first);
      await store.insertDomain(second);
      expect(await store.markDomainVerified(first.id, at(5))).toBe(true);
      expect(await store.markDomainVerified(second.id, at(6))).toBe(false);
      expect(await store.markDomainVerified(first.id, at(7))).toBe(false);
      expect(await store.findVerifiedDomain(first.domain)).toEqual({ ...first, verifiedAt: at(5) });
      expect((await store.findDomain(second.id))?.verifiedAt).toBeNull();
      expect(await store.markDomainVerified("nothing", at(8))).toBe(false);
    });

    it("renews an unverified claim's token and expiry, never a verified one's", async () => {
      const claim = aDomainClaim();
      await store.insertDomain(claim);
      await store.renewDomainClaim(claim.id, "another-token", at(10), at(20));
      expect(await store.findDomain(claim.id)).toEqual({ ...claim, token: "another-token", createdAt: at(10), expiresAt: at(20) });
      await store.markDomainVerified(claim.id, at(30));
      await store.renewDomainClaim(claim.id, "third-token", at(40), at(50));
      expect((await store.findDomain(claim.id))?.token).toBe("another-token");
    });

    it("sets and clears auto-join", async () => {
      const claim = aDomainClaim();
      await store.insertDomain(claim);
      await store.setDomainAutoJoin(claim.id, "member", at(3));
      expect(await store.findDomain(claim.id)).toEqual({ ...claim, autoJoinRole: "member", autoJoinSince: at(3) });
      await store.setDomainAutoJoin(claim.id, null, null);
      expect(await store.findDomain(claim.id)).toEqual(claim);
    });

    it("deletes a claim, after which the domain can be verified by another organization", async () => {
      const first = aDomainClaim();
      const second = aDomainClaim({ domain: first.domain });
      await store.insertDomain(first);
      await store.insertDomain(second);
      await store.markDomainVerified(first.id, at(1));
      await store.deleteDomain(first.id);
      expect(await store.findDomain(first.id)).toBeUndefined();
      expect(await store.markDomainVerified(second.id, at(2))).toBe(true);
      expect((await store.findVerifiedDomain(first.domain))?.organizationId).toBe(second.organizationId);
    });
  });
}
