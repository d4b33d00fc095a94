import { newId } from "@auth-platform/runtime/random";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../../testing/dns-server.js";
import { errorCode } from "../../../../testing/error-code.js";
import { memoryDomainStore } from "../store/memory-domain-store.js";
import {
  claimOrganizationDomain,
  listOrganizationDomains,
  type ManageDeps,
  removeOrganizationDomain,
  requestProviderDomainVerification,
  setOrganizationDomainAutoJoin,
  verifyOrganizationDomain,
  verifyProviderDomain,
} from "./manage.js";
import { dnsTxtResolver } from "./txt-resolver.js";

const caller = (userId: string) => ({ userId, sessionId: `s-${userId}`, email: `${userId}@example.com`, emailVerified: true });

describe("managing an organization's domains", () => {
  let dns: TestDnsServer;
  let deps: ManageDeps;
  let changes: string[];
  const admin = caller("admin");
  const member = caller("member");
  const org = "org-1";
  const other = "org-2";

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns.stop());
  beforeEach(() => {
    changes = [];
    deps = {
      domains: memoryDomainStore(),
      resolver: dnsTxtResolver({ servers: dns.servers, timeoutMs: 300, tries: 1 }),
      now: () => new Date(Date.UTC(2030, 0, 1)),
      newId,
      claimTtlMs: 86_400_000,
      mayManage: async (c, organizationId) => c.userId === "admin" && (organizationId === org || organizationId === other),
      findProvider: async (id) =>
        id === "acme-idp" ? { organizationId: org, domain: "acme-m.example" } : id === "rival-idp" ? { organizationId: "org-3", domain: "x.example" } : null,
      addMember: async () => {},
      domainVerifiedChanged: async (organizationId, domain, verified) => {
        changes.push(`${organizationId} ${domain} ${verified}`);
      },
    };
  });

  it("lets a manager claim, verify, list, set auto-join and remove; the providers are told", async () => {
    const claim = await claimOrganizationDomain(deps, admin, org, "acme-m.example");
    dns.setTxt(claim.record.name, [claim.record.value]);
    expect((await verifyOrganizationDomain(deps, admin, org, claim.id)).status).toBe("verified");
    expect(changes).toEqual(["org-1 acme-m.example true"]);
    expect((await setOrganizationDomainAutoJoin(deps, admin, org, claim.id, "member")).autoJoinRole).toBe("member");
    expect((await listOrganizationDomains(deps, admin, org)).map((d) => [d.domain, d.status, d.autoJoinRole])).toEqual([["acme-m.example", "verified", "member"]]);
    await removeOrganizationDomain(deps, admin, org, claim.id);
    expect(changes).toEqual(["org-1 acme-m.example true", "org-1 acme-m.example false"]);
    expect(await listOrganizationDomains(deps, admin, org)).toEqual([]);
  });

  it("attack: refuses a member who is no manager, and an organization that does not exist, alike", async () => {
    const claim = await claimOrganizationDomain(deps, admin, org, "acme-m.example");
    for (const attempt of [
      listOrganizationDomains(deps, member, org),
      claimOrganizationDomain(deps, member, org, "acme-m.example"),
      verifyOrganizationDomain(deps, member, org, claim.id),
      removeOrganizationDomain(deps, member, org, claim.id),
      setOrganizationDomainAutoJoin(deps, member, org, claim.id, "admin"),
      listOrganizationDomains(deps, admin, "no-such-org"),
      listOrganizationDomains(deps, admin, ""),
    ]) {
      expect(await errorCode(attempt)).toBe("YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS");
    }
  });

  it("attack: a manager of another organization cannot reach a claim through their own organization", async () => {
    const claim = await claimOrganizationDomain(deps, admin, org, "acme-m.example");
    expect(await errorCode(removeOrganizationDomain(deps, admin, other, claim.id))).toBe("DOMAIN_NOT_FOUND");
    expect(await errorCode(verifyOrganizationDomain(deps, admin, other, claim.id))).toBe("DOMAIN_NOT_FOUND");
    expect((await listOrganizationDomains(deps, admin, org)).length).toBe(1);
  });

  it("serves better-auth's provider routes: the same token until verified, then DOMAIN_VERIFIED", async () => {
    expect(await errorCode(verifyProviderDomain(deps, admin, "acme-idp"))).toBe("NO_PENDING_VERIFICATION");
    const first = await requestProviderDomainVerification(deps, admin, "acme-idp");
    expect((await requestProviderDomainVerification(deps, admin, "acme-idp")).token).toBe(first.token);
    expect(first.domain.record.value).toBe(`auth-platform-domain-verification=${first.token}`);
    expect(await errorCode(verifyProviderDomain(deps, admin, "acme-idp"))).toBe("DOMAIN_VERIFICATION_FAILED");
    dns.setTxt(first.domain.record.name, [first.domain.record.value]);
    expect((await verifyProviderDomain(deps, admin, "acme-idp")).status).toBe("verified");
    expect(await errorCode(verifyProviderDomain(deps, admin, "acme-idp"))).toBe("DOMAIN_VERIFIED");
    expect(await errorCode(requestProviderDomainVerification(deps, admin, "acme-idp"))).toBe("DOMAIN_VERIFIED");
  });

  it("attack: a provider the caller may not manage, or none, is not found", async () => {
    expect(await errorCode(requestProviderDomainVerification(deps, admin, "rival-idp"))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(requestProviderDomainVerification(deps, member, "acme-idp"))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(verifyProviderDomain(deps, admin, "nobody"))).toBe("PROVIDER_NOT_FOUND");
  });
});
