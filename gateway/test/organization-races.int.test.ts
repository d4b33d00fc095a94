/**
 * The organization rules that must hold when requests race, through the gateway (SQLite, or PostgreSQL and
 * Redis when configured): ten concurrent attempts each, exactly the allowed outcome.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { usePlatform } from "../../testing/use-platform.js";
import { join, organizationOf, person, uniqueSlug } from "./organization-fixtures.js";

const ATTEMPTS = 10;

describe(`organization races (${backendLabel()})`, () => {
  const platform = usePlatform({ env: { ORGANIZATION_LIMIT: "3" } });

  it("concurrent creates never exceed ORGANIZATION_LIMIT", async () => {
    const ada = await person(platform);
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, () => ada.c.post("/organization/create", { name: "Race", slug: uniqueSlug("race") })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of answers.filter((r) => r.status !== 200)) expect(r.body.code).toBe("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
    expect((await ada.c.get("/organization/list")).body).toHaveLength(3);
  });

  it("two owners leaving at once leave one owner", async () => {
    const ada = await person(platform);
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    await join(ada, grace, org.id, "owner");
    const answers = await Promise.all([ada.c.post("/organization/leave", { organizationId: org.id }), grace.c.post("/organization/leave", { organizationId: org.id })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(answers.find((r) => r.status === 400)!.body.code).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
    const stayer = answers[0]!.status === 400 ? ada : grace;
    expect((await stayer.c.get(`/organization/list-members?organizationId=${org.id}`)).body.members).toEqual([expect.objectContaining({ userId: stayer.user.id, role: "owner" })]);
  });

  it("two owners demoting each other at once leave one owner", async () => {
    const ada = await person(platform);
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const graceMember = await join(ada, grace, org.id, "owner");
    const adaMember = org.members[0];
    const answers = await Promise.all([
      ada.c.post("/organization/update-member-role", { memberId: graceMember.id, role: "member", organizationId: org.id }),
      grace.c.post("/organization/update-member-role", { memberId: adaMember.id, role: "member", organizationId: org.id }),
    ]);
    // The loser is refused as the only owner (400), or, when the winner's demotion landed before its own
    // permission check, as no longer an owner (403).
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.find((r) => r.status !== 200)!.body.code).toMatch(/^(YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER|YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER)$/);
    const members = (await ada.c.get(`/organization/list-members?organizationId=${org.id}`)).body.members as Array<{ role: string }>;
    expect(members.filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("concurrent invitations of one address leave one pending", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const email = `race-${Date.now()}@example.com`;
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, () => ada.c.post("/organization/invite-member", { email, role: "member", organizationId: org.id })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 200)) expect(r.body.code).toBe("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
    const invitations = (await ada.c.get(`/organization/list-invitations?organizationId=${org.id}`)).body as Array<{ email: string; status: string }>;
    expect(invitations.filter((i) => i.email === email && i.status === "pending")).toHaveLength(1);
  });
});
