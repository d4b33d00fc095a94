/**
 * The organization switches from configuration, through the gateway: creation turned off (403 with its
 * catalogue message, for browsers and server-side callers alike) and deletion turned off (404).
 */
import { describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../testing/databases.js";
import { usePlatform } from "../../testing/use-platform.js";
import { person, refusal, uniqueSlug } from "./organization-fixtures.js";

describe(`organization settings (${backendLabel()})`, () => {
  const platform = usePlatform({ env: { ORGANIZATION_ALLOW_CREATION: "false", ORGANIZATION_DELETE_ENABLED: "false" } });

  it("creation switched off: 403, and nothing is created", async () => {
    const ada = await person(platform);
    const slug = uniqueSlug();
    expect(refusal(await ada.c.post("/organization/create", { name: "x", slug }))).toEqual({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
      message: "You are not allowed to create a new organization",
    });
    expect(await platform.services.organization.deps.store.findOrganizationBySlug(slug)).toBeNull();
  });

  it("deletion switched off: 404, and the organization stays", async () => {
    const ada = await person(platform);
    // Seeded in the store: creation is off on this platform.
    const { store } = platform.services.organization.deps;
    const organization = { id: newId(), name: "Kept", slug: uniqueSlug(), logo: null, metadata: {}, createdAt: new Date() };
    await store.createOrganization(organization, { id: newId(), organizationId: organization.id, userId: ada.user.id, role: "owner", createdAt: new Date() });
    expect(refusal(await ada.c.post("/organization/delete", { organizationId: organization.id }))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(await store.findOrganization(organization.id)).not.toBeNull();
  });
});
