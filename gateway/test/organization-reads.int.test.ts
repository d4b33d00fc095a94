/**
 * What organization reads reveal and serve, and who owns an organization after its only owner's account is
 * deleted, through the gateway (SQLite, or PostgreSQL and Redis when configured).
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin } from "./admin-fixtures.js";
import { join, organizationOf, person, refusal, uniqueSlug } from "./organization-fixtures.js";

describe(`organization reads and ownership (${backendLabel()})`, () => {
  const platform = usePlatform({ env: { IDENTITY_DELETE_USER_VERIFICATION: "false" } });

  it("a non-member cannot tell an existing slug from an unknown one", async () => {
    const ada = await person(platform);
    const grace = await person(platform, "Grace");
    const org = await organizationOf(ada);
    const unknown = uniqueSlug("nobody");
    for (const path of ["/organization/get-full-organization?organizationSlug=", "/organization/list-members?organizationSlug="]) {
      const existing = refusal(await grace.c.get(`${path}${org.slug}`));
      expect(existing).toEqual({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", message: "User is not a member of the organization" });
      expect(refusal(await grace.c.get(`${path}${unknown}`))).toEqual(existing);
    }
    const setExisting = refusal(await grace.c.post("/organization/set-active", { organizationSlug: org.slug }));
    expect(setExisting.status).toBe(403);
    expect(refusal(await grace.c.post("/organization/set-active", { organizationSlug: unknown }))).toEqual(setExisting);
    expect(refusal(await grace.c.get(`/organization/get-active-member?organizationSlug=${org.slug}`))).toEqual(
      refusal(await grace.c.get(`/organization/get-active-member?organizationSlug=${unknown}`)),
    );
  });

  it("get-full-organization serves pending invitations only, and membersLimit members", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    for (const name of ["Grace", "Edsger"]) await join(ada, await person(platform, name), org.id);
    const canceled = await ada.c.post("/organization/invite-member", { email: `gone-${Date.now()}@example.com`, role: "member", organizationId: org.id });
    expect((await ada.c.post("/organization/cancel-invitation", { invitationId: canceled.body.id })).status).toBe(200);
    const pending = await ada.c.post("/organization/invite-member", { email: `later-${Date.now()}@example.com`, role: "member", organizationId: org.id });
    const full = (await ada.c.get(`/organization/get-full-organization?organizationId=${org.id}`)).body;
    expect(full.invitations.map((i: any) => [i.id, i.status])).toEqual([[pending.body.id, "pending"]]);
    expect(full.members).toHaveLength(3);
    const limited = (await ada.c.get(`/organization/get-full-organization?organizationId=${org.id}&membersLimit=2`)).body;
    expect(limited.members.map((m: any) => m.user.name)).toEqual(["Ada", "Grace"]);
    expect((await ada.c.get(`/organization/get-full-organization?organizationId=${org.id}&membersLimit=0`)).status).toBe(400);
  });

  it("list-members sorts by createdAt or role and filters by role or userId", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const grace = await person(platform, "Grace");
    const edsger = await person(platform, "Edsger");
    await join(ada, grace, org.id, "member");
    await join(ada, edsger, org.id, "admin");
    const names = async (query: string) => {
      const res = await ada.c.get(`/organization/list-members?organizationId=${org.id}&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { names: res.body.members.map((m: any) => m.user.name), total: res.body.total };
    };
    expect(await names("sortDirection=desc")).toEqual({ names: ["Edsger", "Grace", "Ada"], total: 3 });
    expect(await names("sortBy=role")).toEqual({ names: ["Edsger", "Grace", "Ada"], total: 3 });
    expect(await names("sortBy=role&sortDirection=desc")).toEqual({ names: ["Ada", "Grace", "Edsger"], total: 3 });
    expect(await names("filterField=role&filterValue=admin")).toEqual({ names: ["Edsger"], total: 1 });
    expect(await names("filterField=role&filterOperator=ne&filterValue=admin")).toEqual({ names: ["Ada", "Grace"], total: 2 });
    expect(await names(`filterField=userId&filterOperator=in&filterValue=${grace.user.id}&filterValue=${ada.user.id}`)).toEqual({ names: ["Ada", "Grace"], total: 2 });
    expect(await names("filterField=role&filterOperator=not_in&filterValue=admin&filterValue=owner")).toEqual({ names: ["Grace"], total: 1 });
    for (const bad of ["sortBy=email", "filterField=email&filterValue=x", "filterField=role&filterOperator=contains&filterValue=a", "sortDirection=up"]) {
      expect((await ada.c.get(`/organization/list-members?organizationId=${org.id}&${bad}`)).status, bad).toBe(400);
    }
  });

  it("deleting an only owner's account passes ownership to the oldest admin; a last member's organization goes", async () => {
    const ada = await person(platform);
    const shared = await organizationOf(ada);
    const grace = await person(platform, "Grace");
    const edsger = await person(platform, "Edsger");
    await join(ada, grace, shared.id, "member");
    await join(ada, edsger, shared.id, "admin");
    const alone = await organizationOf(ada);
    expect((await ada.c.post("/delete-user", {})).status).toBe(200);

    const members = (await edsger.c.get(`/organization/list-members?organizationId=${shared.id}`)).body.members;
    expect(members.map((m: any) => [m.user.name, m.role])).toEqual([
      ["Grace", "member"],
      ["Edsger", "owner"],
    ]);
    // The new owner holds every owner right, deleting the organization included.
    expect((await edsger.c.post("/organization/update", { organizationId: shared.id, data: { name: "Kept" } })).status).toBe(200);
    const store = platform.services.organization.deps.store;
    expect(await store.findOrganization(alone.id)).toBeNull();
    expect(await store.findOrganization(shared.id)).not.toBeNull();
  });

  it("an admin removing an only owner's account passes ownership on the same way", async () => {
    const ada = await person(platform);
    const org = await organizationOf(ada);
    const grace = await person(platform, "Grace");
    await join(ada, grace, org.id, "member");
    const admin = await anAdmin(platform);
    expect((await admin.c.post("/admin/remove-user", { userId: ada.user.id })).body).toEqual({ success: true });
    expect((await grace.c.get(`/organization/list-members?organizationId=${org.id}`)).body.members).toEqual([expect.objectContaining({ userId: grace.user.id, role: "owner" })]);
  });
});
