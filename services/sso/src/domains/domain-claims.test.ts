import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../../testing/dns-server.js";
import { errorCode } from "../../../../testing/error-code.js";
import { memoryDomainStore } from "../store/memory-domain-store.js";
import { autoJoinOf, claimDomain, type DomainDeps, ownClaim, setAutoJoin, verifiedDomainOfEmail, verifyDomainClaim } from "./domain-claims.js";
import { dnsTxtResolver } from "./txt-resolver.js";

const DAY = 86_400_000;

describe("domain claims", () => {
  let dns: TestDnsServer;
  let deps: DomainDeps;
  let now: number;
  const acme = "org-acme";
  const rival = "org-rival";

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns.stop());
  beforeEach(() => {
    now = Date.UTC(2030, 0, 1);
    deps = {
      domains: memoryDomainStore(),
      resolver: dnsTxtResolver({ servers: dns.servers, timeoutMs: 300, tries: 1 }),
      now: () => new Date(now),
      newId,
      claimTtlMs: 7 * DAY,
    };
  });

  const publish = (record: { name: string; value: string }) => dns.setTxt(record.name, [record.value]);
  const verify = async (organizationId: string, id: string) => verifyDomainClaim(deps, await ownClaim(deps, organizationId, id));

  it("claims a domain in its canonical form, with the record to publish", async () => {
    const claim = await claimDomain(deps, acme, " Bücher.DE. ");
    expect(claim).toMatchObject({ organizationId: acme, domain: "xn--bcher-kva.de", status: "pending", verifiedAt: null, autoJoinRole: null });
    expect(claim.record.name).toBe("_auth-platform-challenge.xn--bcher-kva.de");
    expect(claim.record.value).toMatch(/^auth-platform-domain-verification=[A-Za-z0-9_-]{32}$/);
    expect(claim.expiresAt.getTime() - claim.createdAt.getTime()).toBe(7 * DAY);
  });

  it("refuses a public suffix and a name that is not a domain", async () => {
    expect(await errorCode(claimDomain(deps, acme, "co.uk"))).toBe("DOMAIN_IS_A_PUBLIC_SUFFIX");
    expect(await errorCode(claimDomain(deps, acme, "com"))).toBe("DOMAIN_IS_A_PUBLIC_SUFFIX");
    expect(await errorCode(claimDomain(deps, acme, "https://acme.example"))).toBe("INVALID_DOMAIN");
  });

  it("answers the same claim while it is pending, and a new token once it expired", async () => {
    const first = await claimDomain(deps, acme, "acme-1.example");
    expect(await claimDomain(deps, acme, "ACME-1.example")).toEqual(first);
    now += 7 * DAY;
    const renewed = await claimDomain(deps, acme, "acme-1.example");
    expect(renewed.id).toBe(first.id);
    expect(renewed.record.value).not.toBe(first.record.value);
    expect(renewed.status).toBe("pending");
  });

  it("verifies a claim whose record is published, and only then", async () => {
    const claim = await claimDomain(deps, acme, "acme-2.example");
    const failure = await verify(acme, claim.id).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: "DOMAIN_VERIFICATION_FAILED", fields: { reason: "absent", domain: "acme-2.example" } });
    dns.setTxt(claim.record.name, ["auth-platform-domain-verification=someone-elses"]);
    expect(await verify(acme, claim.id).catch((error: unknown) => error)).toMatchObject({ fields: { reason: "mismatch" } });
    dns.failFor(claim.record.name);
    expect(await verify(acme, claim.id).catch((error: unknown) => error)).toMatchObject({ fields: { reason: "unavailable" } });
    publish(claim.record);
    const verified = await verify(acme, claim.id);
    expect(verified).toMatchObject({ status: "verified", verifiedAt: new Date(now) });
    expect(await errorCode(verify(acme, claim.id))).toBe("DOMAIN_VERIFIED");
    expect(await errorCode(claimDomain(deps, acme, "acme-2.example"))).toBe("DOMAIN_VERIFIED");
  });

  it("refuses to verify an expired claim", async () => {
    const claim = await claimDomain(deps, acme, "acme-3.example");
    publish(claim.record);
    now += 7 * DAY;
    expect(await errorCode(verify(acme, claim.id))).toBe("NO_PENDING_VERIFICATION");
  });

  it("attack: a domain verified by one organization cannot be claimed or verified by a second", async () => {
    const rivalClaim = await claimDomain(deps, rival, "acme-4.example");
    const claim = await claimDomain(deps, acme, "acme-4.example");
    publish(claim.record);
    await verify(acme, claim.id);
    expect(await errorCode(claimDomain(deps, rival, "acme-4.example"))).toBe("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
    // Even publishing its own record (the rival controls a record there for a while) does not move the domain.
    publish(rivalClaim.record);
    expect(await errorCode(verify(rival, rivalClaim.id))).toBe("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
    expect((await verifiedDomainOfEmail(deps, "jane@ACME-4.example"))?.organizationId).toBe(acme);
  });

  it("attack: another organization's claim is not found, by id", async () => {
    const claim = await claimDomain(deps, acme, "acme-5.example");
    expect(await errorCode(ownClaim(deps, rival, claim.id))).toBe("DOMAIN_NOT_FOUND");
    expect(await errorCode(ownClaim(deps, rival, "nothing"))).toBe("DOMAIN_NOT_FOUND");
  });

  it("routes an email by a verified domain only, exactly", async () => {
    const claim = await claimDomain(deps, acme, "acme-6.example");
    expect(await verifiedDomainOfEmail(deps, "jane@acme-6.example")).toBeUndefined();
    publish(claim.record);
    await verify(acme, claim.id);
    expect((await verifiedDomainOfEmail(deps, "jane@acme-6.example"))?.organizationId).toBe(acme);
    expect(await verifiedDomainOfEmail(deps, "jane@eng.acme-6.example")).toBeUndefined();
    expect(await verifiedDomainOfEmail(deps, "not an email")).toBeUndefined();
  });

  describe("auto-join", () => {
    const user = (overrides: Partial<{ email: string; emailVerified: boolean; verifiedAt: Date }> = {}) => ({
      id: newId(),
      email: "jane@acme-7.example",
      emailVerified: true,
      verifiedAt: new Date(now),
      ...overrides,
    });

    it("joins a user whose address of the domain was verified since, with the role", async () => {
      const claim = await claimDomain(deps, acme, "acme-7.example");
      publish(claim.record);
      const record = await ownClaim(deps, acme, claim.id);
      await setAutoJoin(deps, record, "member");
      expect(await autoJoinOf(deps, user())).toBeUndefined(); // not verified yet
      await verify(acme, claim.id);
      expect(await autoJoinOf(deps, user())).toEqual({ organizationId: acme, role: "member" });
      // Changing the role keeps the start: the users eligible stay so.
      now += DAY;
      await setAutoJoin(deps, await ownClaim(deps, acme, claim.id), "admin");
      expect(await autoJoinOf(deps, user({ verifiedAt: new Date(now - DAY) }))).toEqual({ organizationId: acme, role: "admin" });
    });

    it("attack: an unverified address of the domain joins nothing", async () => {
      const claim = await claimDomain(deps, acme, "acme-7.example");
      publish(claim.record);
      await verify(acme, claim.id);
      await setAutoJoin(deps, await ownClaim(deps, acme, claim.id), "member");
      expect(await autoJoinOf(deps, user({ emailVerified: false }))).toBeUndefined();
    });

    it("joins no user whose address was verified before auto-join was on, nor any once it is off", async () => {
      const claim = await claimDomain(deps, acme, "acme-7.example");
      publish(claim.record);
      await verify(acme, claim.id);
      const before = user();
      now += 1;
      await setAutoJoin(deps, await ownClaim(deps, acme, claim.id), "member");
      expect(await autoJoinOf(deps, before)).toBeUndefined();
      await setAutoJoin(deps, await ownClaim(deps, acme, claim.id), null);
      expect(await autoJoinOf(deps, user())).toBeUndefined();
    });

    it("refuses owner, or a role that does not exist, as the auto-join role", async () => {
      const claim = await claimDomain(deps, acme, "acme-8.example");
      const record = await ownClaim(deps, acme, claim.id);
      expect(await errorCode(setAutoJoin(deps, record, "owner"))).toBe("VALIDATION_ERROR");
      expect(await errorCode(setAutoJoin(deps, record, "superuser"))).toBe("VALIDATION_ERROR");
    });
  });
});
