/**
 * Domain auto-join on the whole platform (docs/organizations.md, docs/adr/0074-user-event-outbox.md): an
 * organization verifies a domain (a real DNS server on loopback) and turns auto-join on; a user who signs up
 * at that domain joins once the address is verified, never before, and users at other domains never. The
 * last test stops the sso service: the verification is answered and kept, identity's user event outbox holds
 * the event, and once sso is back its worker delivers it and the user joins.
 */
import { afterAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { startDnsServer } from "../../testing/dns-server.js";
import { eventually } from "../../testing/eventually.js";
import type { TestClient } from "../../testing/http.js";
import { type RunningSso, startSso } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { organizationOf, type Person, person, verifyEmail } from "./organization-fixtures.js";

const dns = await startDnsServer();
let restartedSso: RunningSso | undefined;

describe(`domain auto-join (${backendLabel()})`, () => {
  // A generous DNS timeout: on a busy machine the loopback server may answer late.
  const ssoEnv = { SSO_DNS_SERVERS: dns.servers.join(","), SSO_DNS_TIMEOUT_MS: "10000" };
  const platform = usePlatform({ smtp: true, serviceEnv: { sso: ssoEnv } });
  afterAll(async () => {
    await restartedSso?.close();
    await dns.stop();
  });
  let n = 0;
  const aDomain = () => `auto-${Date.now().toString(36)}-${++n}.example`;
  const members = () => platform.services.organization.deps.store;

  /** An organization of a new owner (at `domain`, when given) whose domain is verified, with auto-join set to `role` (null: off). */
  async function organizationWithDomain(role: "member" | "admin" | null, domain = aDomain(), owner?: Person) {
    owner ??= await person(platform, "Owner");
    const org = await organizationOf(owner);
    const claimed = await owner.c.post("/organization/claim-domain", { organizationId: org.id, domain });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    dns.setTxt(claimed.body.record.name, [claimed.body.record.value]);
    expect((await owner.c.post("/organization/verify-domain", { organizationId: org.id, domainId: claimed.body.id })).body).toMatchObject({ status: "verified" });
    if (role) {
      const set = await owner.c.post("/organization/set-domain-auto-join", { organizationId: org.id, domainId: claimed.body.id, role });
      expect(set.body).toMatchObject({ autoJoinRole: role });
    }
    return { owner, org, domain, claimId: claimed.body.id as string };
  }

  /** Signs up a user at `email` (their verification mail is sent to the test SMTP server). */
  async function signedUpAt(email: string): Promise<Person> {
    const c: TestClient = platform.client();
    const res = await c.post("/sign-up/email", { name: "Joiner", email, password: "password-123" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user).toMatchObject({ email, emailVerified: false });
    return { c, email, user: res.body.user };
  }

  it("a user at the domain joins with the auto-join role once the address is verified, not before; one at another domain never", async () => {
    const { org, domain } = await organizationWithDomain("member");
    const joe = await signedUpAt(`joe@${domain}`);
    const stranger = await signedUpAt(`joe@other-${domain}`);
    // Signed up with the address, unproven: anyone could type it.
    expect(await members().findMember(org.id, joe.user.id)).toBeNull();

    await verifyEmail(platform, joe);
    expect(await members().findMember(org.id, joe.user.id)).toMatchObject({ role: "member" });
    // The member sees the organization as any member does.
    const listed = await joe.c.get("/organization/list");
    expect(listed.body.map((o: { id: string }) => o.id)).toEqual([org.id]);

    await verifyEmail(platform, stranger);
    expect(await members().countMemberships(stranger.user.id)).toBe(0);
    // Every event delivered (the webhooks' ones just after the answers).
    for (const id of [joe.user.id, stranger.user.id]) await eventually(async () => expect(await platform.services.identity.deps.store.findUserEvents(id)).toEqual([]));
  });

  it("joins with the admin role when the domain says so", async () => {
    const { org, domain } = await organizationWithDomain("admin");
    const ann = await signedUpAt(`ann@${domain}`);
    await verifyEmail(platform, ann);
    expect(await members().findMember(org.id, ann.user.id)).toMatchObject({ role: "admin" });
  });

  it("a member already keeps their role: the owner at the domain verifying their address stays owner", async () => {
    const domain = aDomain();
    const boss = await signedUpAt(`boss@${domain}`);
    const { org } = await organizationWithDomain("member", domain, boss);
    await verifyEmail(platform, boss);
    // The delivery reached sso, which asked organization to add a member it already has.
    await eventually(async () => expect(await platform.services.identity.deps.store.findUserEvents(boss.user.id)).toEqual([]));
    expect(await members().findMember(org.id, boss.user.id)).toMatchObject({ role: "owner" });
    expect(await members().countMemberships(boss.user.id)).toBe(1);
  });

  it("with auto-join off nobody joins, however verified", async () => {
    const { owner, org, domain, claimId } = await organizationWithDomain(null);
    const off = await signedUpAt(`off@${domain}`);
    await verifyEmail(platform, off);
    expect(await members().countMemberships(off.user.id)).toBe(0);
    // Turned on and off again: still nobody.
    expect((await owner.c.post("/organization/set-domain-auto-join", { organizationId: org.id, domainId: claimId, role: "member" })).body).toMatchObject({
      autoJoinRole: "member",
    });
    const turnedOff = await owner.c.post("/organization/set-domain-auto-join", { organizationId: org.id, domainId: claimId, role: null });
    expect(turnedOff.status, JSON.stringify(turnedOff.body)).toBe(200);
    expect(turnedOff.body.autoJoinRole ?? null).toBeNull();
    const later = await signedUpAt(`later@${domain}`);
    await verifyEmail(platform, later);
    expect(await members().countMemberships(later.user.id)).toBe(0);
  });

  it("partition: with sso stopped the verification is kept and answered; the user joins once sso is back", async () => {
    const { org, domain } = await organizationWithDomain("member");
    const kim = await signedUpAt(`kim@${domain}`);

    await platform.services.sso.close();
    await verifyEmail(platform, kim);
    // identity holds the event; nobody could tell sso, so no membership yet.
    const identityStore = platform.services.identity.deps.store;
    const autoJoin = async () => (await identityStore.findUserEvents(kim.user.id)).filter((event) => event.type === "email-verified");
    expect(await autoJoin()).toEqual([expect.objectContaining({ type: "email-verified", payload: { email: kim.email } })]);
    expect(await members().findMember(org.id, kim.user.id)).toBeNull();

    restartedSso = await startSso({ ...platform.env, ...ssoEnv });
    // The retry backed off while sso was down: let it come due; the worker polls and delivers.
    platform.clock.advance(120_000);
    await eventually(async () => expect(await members().findMember(org.id, kim.user.id)).toMatchObject({ role: "member" }));
    await eventually(async () => expect(await identityStore.findUserEvents(kim.user.id)).toEqual([]));
  });
});
