import { describe, expect, it } from "vitest";
import { scimDeps } from "../../test/scim-fakes.js";
import { scimRejection } from "../../test/scim-refusal.js";
import { authenticate, generateToken, listTokens, MAX_TOKENS_PER_ORGANIZATION, revokeToken, requireOwner } from "./tokens.js";

describe("SCIM tokens", () => {
  it("are shown once, kept as a digest, listed without the secret, and authenticate for their organization", async () => {
    const deps = scimDeps();
    const { token, summary } = await generateToken(deps, { organizationId: "org-a", name: "Okta", createdBy: "owner-1" });
    expect(token).toMatch(/^scim_[A-Za-z0-9]{43}$/);
    expect(summary).toEqual({ id: expect.any(String), name: "Okta", prefix: token.slice(0, 9), createdBy: "owner-1", createdAt: deps.clock.now });
    const listed = await listTokens(deps, "org-a");
    expect(listed).toEqual([summary]);
    expect(JSON.stringify(await deps.store.listTokens("org-a"))).not.toContain(token.slice(9));
    expect(await authenticate(deps, `Bearer ${token}`)).toBe("org-a");
    expect(await authenticate(deps, `bearer   ${token}`)).toBe("org-a");
    expect((await deps.store.listTokens("org-a"))[0]!.lastUsedAt).toEqual(deps.clock.now);
  });

  it("refuse a missing, malformed, unknown or revoked token with the same 401", async () => {
    const deps = scimDeps();
    const { token, summary } = await generateToken(deps, { organizationId: "org-a", name: "Entra", createdBy: "owner-1" });
    const bodies = [];
    for (const header of [undefined, "", token, `Basic ${token}`, `Bearer ${token}x`, "Bearer scim_", `Bearer ${token.toUpperCase()}`]) {
      bodies.push((await scimRejection(() => authenticate(deps, header))).body());
    }
    expect(await revokeToken(deps, "org-a", summary.id)).toBe(true);
    bodies.push((await scimRejection(() => authenticate(deps, `Bearer ${token}`))).body());
    expect(new Set(bodies.map((b) => JSON.stringify(b)))).toEqual(
      new Set([JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "401", detail: "A valid SCIM bearer token is required" })]),
    );
  });

  it("are revoked only by their own organization", async () => {
    const deps = scimDeps();
    const { token, summary } = await generateToken(deps, { organizationId: "org-a", name: "Okta", createdBy: "owner-1" });
    expect(await revokeToken(deps, "org-b", summary.id)).toBe(false);
    expect(await authenticate(deps, `Bearer ${token}`)).toBe("org-a");
    expect(await listTokens(deps, "org-b")).toEqual([]);
  });

  it("are limited per organization", async () => {
    const deps = scimDeps();
    for (let i = 0; i < MAX_TOKENS_PER_ORGANIZATION; i++) await generateToken(deps, { organizationId: "org-a", name: `t${i}`, createdBy: "owner-1" });
    await expect(generateToken(deps, { organizationId: "org-a", name: "one more", createdBy: "owner-1" })).rejects.toMatchObject({ code: "TOO_MANY_SCIM_TOKENS" });
    await expect(generateToken(deps, { organizationId: "org-b", name: "other", createdBy: "owner-2" })).resolves.toBeDefined();
  });
});

describe("who manages SCIM tokens", () => {
  it("is an owner of the organization; an admin is refused, a non-member told they are not one", async () => {
    const deps = scimDeps();
    deps.peers.roles.set("org-a/owner-1", "owner");
    deps.peers.roles.set("org-a/admin-1", "admin,member");
    await expect(requireOwner(deps, "org-a", "owner-1")).resolves.toBeUndefined();
    await expect(requireOwner(deps, "org-a", "admin-1")).rejects.toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS" });
    await expect(requireOwner(deps, "org-b", "owner-1")).rejects.toMatchObject({ code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });
});
