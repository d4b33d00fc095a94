/** remove-user takes the user's organization memberships with it (identity's delete flow calls the organization service). */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform();

describe("remove-user and organization memberships", () => {
  it("a removed user's memberships are gone; another member's stay", async () => {
    const admin = await anAdmin(platform);
    const grace = await aUser(platform, "Grace");
    const ada = await aUser(platform, "Ada");
    for (const user of [grace, ada]) {
      for (const name of ["Engines", "Looms"]) {
        const res = await user.c.post("/organization/create", { name, slug: `${name.toLowerCase()}-${randomUUID()}` });
        expect(res.status).toBe(200);
      }
    }
    const store = platform.services.organization.deps.store;
    expect(await store.countMemberships(grace.id)).toBe(2);
    expect((await grace.c.get("/organization/list")).body).toHaveLength(2);

    expect((await admin.c.post("/admin/remove-user", { userId: grace.id })).body).toEqual({ success: true });
    expect(await store.countMemberships(grace.id)).toBe(0);
    expect(await store.countMemberships(ada.id)).toBe(2);
    expect((await ada.c.get("/organization/list")).body).toHaveLength(2);
  });
});
