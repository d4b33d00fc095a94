/**
 * POST /admin/update-user, the current client's adminUpdateUser (1.7 adminClient; the 1.1 client has no such
 * call): profile fields and role of another user, the user answered unwrapped, every refusal with its message.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { adminClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD, aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor" } });

async function adminBrowser() {
  const { email } = await anAdmin(platform);
  const { customFetchImpl } = browserFetch(platform.origin);
  const client = createAuthClient({ baseURL: platform.baseURL, plugins: [adminClient()], fetchOptions: { customFetchImpl } });
  expect((await client.signIn.email({ email, password: PASSWORD })).error).toBeNull();
  return client;
}

describe("admin update-user (better-auth 1.7 adminClient)", () => {
  it("changes name, image and role; the user's next session carries the role; the change is audited", async () => {
    const client = await adminBrowser();
    const grace = await aUser(platform);
    const { data, error } = await client.admin.updateUser({ userId: grace.id, data: { name: "Grace Hopper", image: "https://example.com/g.png", role: "editor" } });
    expect(error).toBeNull();
    expect(data).toMatchObject({ id: grace.id, name: "Grace Hopper", image: "https://example.com/g.png", role: "editor", banned: false });
    const session = await grace.c.get("/get-session?disableCookieCache=true");
    expect(session.body.user).toMatchObject({ name: "Grace Hopper", role: "editor" });
    const cleared = await client.admin.updateUser({ userId: grace.id, data: { image: null } });
    expect(cleared.data!.image ?? null).toBeNull();
    const log = await client.$fetch<{ events: { action: string; targetId: string; outcome: string; details: { fields: string[] } }[] }>(
      `/admin/list-audit-events?action=user.update&targetId=${grace.id}`,
      { method: "GET" },
    );
    expect(log.data!.events.map((e) => e.details.fields.sort())).toEqual(expect.arrayContaining([["image", "name", "role"], ["image"]]));
  });

  it("refuses empty data, fields with their own route, bad values and unknown users", async () => {
    const client = await adminBrowser();
    const grace = await aUser(platform);
    const refusal = async (data: Record<string, unknown>, userId = grace.id) => {
      const { error } = await client.admin.updateUser({ userId, data });
      return { status: error?.status, code: error?.code, message: error?.message };
    };
    expect(await refusal({})).toEqual({ status: 400, code: "NO_DATA_TO_UPDATE", message: "No data to update" });
    for (const [field, value] of [
      ["password", "new-password-1"],
      ["id", "x"],
      ["email", "x@example.com"],
      ["emailVerified", true],
      ["banned", true],
      ["banReason", "spam"],
      ["banExpires", 1],
    ] as const) {
      expect(await refusal({ [field]: value })).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    }
    expect(await refusal({ banned: true })).toMatchObject({ message: "Ban fields cannot be updated through update-user; use ban-user or unban-user" });
    expect(await refusal({ name: "" })).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(await refusal({ role: 42 })).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(await refusal({ name: "X" }, "no-such-user")).toMatchObject({ status: 404, code: "USER_NOT_FOUND" });
    // A role that is not configured refuses the whole change (the name with it), under 1.7's code.
    for (const role of ["superuser", ["editor", "superuser"]]) {
      expect(await refusal({ name: "Renamed", role })).toEqual({
        status: 400,
        code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
        message: "You are not allowed to set non-existent value",
      });
    }
    const unchanged = await platform.services.identity.deps.store.findUserById(grace.id);
    expect(unchanged).toMatchObject({ name: "Grace", banned: false, role: "user" });
  });

  it("is refused to a non-admin and without a session", async () => {
    const grace = await aUser(platform);
    const other = await aUser(platform, "Ada");
    const res = await grace.c.post("/admin/update-user", { userId: other.id, data: { role: "admin" } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT");
    const anonymous = await platform.client().post("/admin/update-user", { userId: other.id, data: { name: "x" } });
    expect(anonymous.status).toBe(401);
    expect((await platform.services.identity.deps.store.findUserById(other.id))?.role).toBe("user");
  });
});
