/**
 * The import end to end, through the running platform: better-auth 1.7's rows imported (by the command's
 * way in: the store opened from the organization service's own environment) while the platform runs, then
 * the invited address signs up through the gateway, reads the imported invitation by its better-auth id
 * and accepts it, and becomes a member with the invited role.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workloadEnv } from "../../../testing/certificates.js";
import { backendLabel } from "../../../testing/databases.js";
import { usePlatform } from "../../../testing/use-platform.js";
import { importOrganizationRows, type OrganizationImportStore, openOrganizationImportStoreFromEnv } from "../src/import/organization-import.js";
import { type BetterAuthOrganizationSource, betterAuthOrganizationSource } from "../../../testing/better-auth-source.js";

describe(`better-auth organization import through the platform (${backendLabel()})`, () => {
  const platform = usePlatform();
  let source: BetterAuthOrganizationSource;
  let target: OrganizationImportStore;

  beforeAll(async () => {
    source = await betterAuthOrganizationSource("1.7");
    target = await openOrganizationImportStoreFromEnv(workloadEnv(platform.env, "organization"));
  });
  afterAll(async () => {
    await target?.close();
    source?.close();
  });

  it("the invited address signs up and accepts the imported pending invitation", async () => {
    const report = await importOrganizationRows(target, source.rows);
    expect(report.skipped).toEqual([]);

    const invitee = platform.client();
    const email = source.invitee.email.toLowerCase();
    expect((await invitee.post("/sign-up/email", { name: "Grace", email, password: "password-123" })).status).toBe(200);
    const id = source.invitee.invitationId;
    const shown = await invitee.get(`/organization/get-invitation?id=${id}`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toMatchObject({
      id,
      email,
      status: "pending",
      organizationId: source.organizationId,
      organizationName: "Analytical Engines",
      organizationSlug: "engines-17",
    });

    const accepted = await invitee.post("/organization/accept-invitation", { invitationId: id });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ invitation: { id, status: "accepted" }, member: { organizationId: source.organizationId, role: "member" } });
    expect((await invitee.get("/get-session")).body.session.activeOrganizationId).toBe(source.organizationId);

    // Accepted once; a rerun of the import (the source still says pending) leaves it accepted.
    expect((await invitee.post("/organization/accept-invitation", { invitationId: id })).body.code).toBe("INVITATION_NOT_FOUND");
    const rerun = await importOrganizationRows(target, source.read());
    expect(rerun.skipped).toEqual([{ kind: "invitation", id, reason: "accepted here since an earlier import: kept as it is" }]);
    expect((await invitee.post("/organization/accept-invitation", { invitationId: id })).body.code).toBe("INVITATION_NOT_FOUND");
  });
});
