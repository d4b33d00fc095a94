/**
 * Verified domains over HTTP, on the whole platform, with a real DNS server on loopback injected through
 * the sso service's SSO_DNS_SERVERS (docs/http-api/domains.md, docs/adr/0071-verified-domains.md).
 */
import { afterAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { startDnsServer } from "../../testing/dns-server.js";
import { usePlatform } from "../../testing/use-platform.js";
import { join, organizationOf, person, refusal } from "./organization-fixtures.js";

const dns = await startDnsServer();

describe(`verified domains (${backendLabel()})`, () => {
  const platform = usePlatform({ serviceEnv: { sso: { SSO_DNS_SERVERS: dns.servers.join(",") } } });
  afterAll(() => dns.stop());
  let n = 0;
  const aDomain = () => `acme-${Date.now().toString(36)}-${++n}.example`;

  it("an owner claims a domain, publishes the record, verifies it, sets auto-join and removes it", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const name = aDomain();
    const claimed = await ada.c.post("/organization/claim-domain", { organizationId: org.id, domain: name.toUpperCase() });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body).toMatchObject({ domain: name, status: "pending", organizationId: org.id, verifiedAt: null, autoJoinRole: null });
    expect(claimed.body.record).toMatchObject({ name: `_auth-platform-challenge.${name}`, type: "TXT" });

    const early = await ada.c.post("/organization/verify-domain", { organizationId: org.id, domainId: claimed.body.id });
    expect(refusal(early)).toMatchObject({ status: 502, code: "DOMAIN_VERIFICATION_FAILED" });
    expect(early.body.reason).toBe("absent");
    expect(early.body.domain).toBe(name);

    dns.setTxt(claimed.body.record.name, ["v=spf1 -all", claimed.body.record.value]);
    const verified = await ada.c.post("/organization/verify-domain", { organizationId: org.id, domainId: claimed.body.id });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ status: "verified" });

    const autoJoin = await ada.c.post("/organization/set-domain-auto-join", { organizationId: org.id, domainId: claimed.body.id, role: "member" });
    expect(autoJoin.body).toMatchObject({ autoJoinRole: "member" });
    const listed = await ada.c.get(`/organization/list-domains?organizationId=${org.id}`);
    expect(listed.body.map((d: { domain: string; status: string }) => [d.domain, d.status])).toEqual([[name, "verified"]]);

    expect((await ada.c.post("/organization/remove-domain", { organizationId: org.id, domainId: claimed.body.id })).body).toEqual({ status: true });
    expect((await ada.c.get(`/organization/list-domains?organizationId=${org.id}`)).body).toEqual([]);
  });

  it("attack: a domain verified by one organization cannot be claimed or verified by a second", async () => {
    const ada = await person(platform);
    const mallory = await person(platform, "Mallory");
    const acme = await organizationOf(ada);
    const evil = await organizationOf(mallory);
    const name = aDomain();
    const malloryClaim = await mallory.c.post("/organization/claim-domain", { organizationId: evil.id, domain: name });
    const adaClaim = await ada.c.post("/organization/claim-domain", { organizationId: acme.id, domain: name });
    dns.setTxt(adaClaim.body.record.name, [adaClaim.body.record.value, malloryClaim.body.record.value]);
    expect((await ada.c.post("/organization/verify-domain", { organizationId: acme.id, domainId: adaClaim.body.id })).status).toBe(200);
    expect(refusal(await mallory.c.post("/organization/verify-domain", { organizationId: evil.id, domainId: malloryClaim.body.id }))).toMatchObject({
      status: 409,
      code: "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION",
    });
    expect(refusal(await mallory.c.post("/organization/claim-domain", { organizationId: evil.id, domain: name }))).toMatchObject({
      status: 409,
      code: "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION",
    });
    // Nor can Mallory reach Ada's claim, through her own organization or Ada's.
    expect(refusal(await mallory.c.post("/organization/remove-domain", { organizationId: evil.id, domainId: adaClaim.body.id }))).toMatchObject({
      status: 404,
      code: "DOMAIN_NOT_FOUND",
    });
    expect(refusal(await mallory.c.post("/organization/remove-domain", { organizationId: acme.id, domainId: adaClaim.body.id }))).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS",
    });
  });

  it("attack: no organization registers an identity provider for a domain another organization verified", async () => {
    const ada = await person(platform);
    const mallory = await person(platform, "Mallory");
    const acme = await organizationOf(ada);
    const evil = await organizationOf(mallory);
    const name = aDomain();
    const claim = await ada.c.post("/organization/claim-domain", { organizationId: acme.id, domain: name });
    dns.setTxt(claim.body.record.name, [claim.body.record.value]);
    expect((await ada.c.post("/organization/verify-domain", { organizationId: acme.id, domainId: claim.body.id })).status).toBe(200);
    // Refused before the issuer is looked at, in any spelling of the domain.
    const oidcConfig = { clientId: "squatter", clientSecret: "squatter-secret" };
    for (const domain of [name, name.toUpperCase()]) {
      const squat = await mallory.c.post("/sso/register", {
        providerId: `squat-${Date.now().toString(36)}`,
        issuer: "https://idp.mallory.example",
        domain,
        organizationId: evil.id,
        oidcConfig,
      });
      expect(refusal(squat)).toMatchObject({ status: 409, code: "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION" });
    }
    expect((await mallory.c.get(`/sso/providers?organizationId=${evil.id}`)).body.providers).toEqual([]);
  });

  it("attack: a member who is no owner or admin is refused, as a stranger and a missing organization are", async () => {
    const ada = await person(platform);
    const bob = await person(platform, "Bob");
    const org = await organizationOf(ada);
    await join(ada, bob, org.id, "member");
    for (const organizationId of [org.id, "no-such-organization"]) {
      expect(refusal(await bob.c.post("/organization/claim-domain", { organizationId, domain: aDomain() }))).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS",
      });
    }
  });

  it("bad input is a 400 with its code, never a 500", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    expect(refusal(await ada.c.post("/organization/claim-domain", { organizationId: org.id, domain: "co.uk" }))).toMatchObject({ status: 400, code: "DOMAIN_IS_A_PUBLIC_SUFFIX" });
    expect(refusal(await ada.c.post("/organization/claim-domain", { organizationId: org.id, domain: "https://x.example/" }))).toMatchObject({
      status: 400,
      code: "INVALID_DOMAIN",
    });
    expect(refusal(await ada.c.post("/organization/claim-domain", { organizationId: org.id }))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(refusal(await ada.c.post("/organization/set-domain-auto-join", { organizationId: org.id, domainId: "x", role: "owner" }))).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
    });
    expect(refusal(await ada.c.post("/sso/verify-domain", { providerId: "nobody" }))).toMatchObject({ status: 404, code: "PROVIDER_NOT_FOUND" });
  });
});
