/** The organization event worker on the memory store: publishes, retries with backoff, never drops an event. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { aUser, testRegistry } from "../../test/test-registry.js";
import { createOrganization, deleteOrganization } from "./organizations.js";
import { publishDueOrganizationEvents, wakingStore } from "./organization-events.js";

describe("organization events", () => {
  it("a write wakes the worker; a pass publishes each event once and empties the outbox", async () => {
    const registry = testRegistry();
    let wakes = 0;
    registry.store = wakingStore(registry.store, { wake: () => wakes++ });
    const { organization } = await createOrganization(registry, { caller: aUser(registry).caller(), name: "Engines", slug: "engines", metadata: {} });
    expect(wakes).toBe(1);
    expect(registry.published).toEqual([]);
    expect(await publishDueOrganizationEvents(registry)).toBe(2);
    expect(registry.published.map((e) => e.type).sort()).toEqual(["member.added", "organization.created"]);
    expect(registry.published).toContainEqual(
      expect.objectContaining({ type: "organization.created", data: { organization: { id: organization.id, name: "Engines", slug: "engines" } } }),
    );
    expect(await publishDueOrganizationEvents(registry)).toBe(0);
  });

  it("while notification fails, the event stays and is retried after a growing delay, under the same id", async () => {
    const registry = testRegistry();
    const failing = registry.webhooks.publish;
    let down = true;
    registry.webhooks = {
      async publish(event) {
        if (down) throw new AuthError("SERVICE_UNAVAILABLE");
        await failing(event);
      },
    };
    await createOrganization(registry, { caller: aUser(registry).caller(), name: "Engines", slug: "engines", metadata: {} });
    const due = async () => (await registry.store.findDueOrganizationEvents(new Date(Date.UTC(2100, 0, 1)), 100)).map((e) => `${e.type} ${e.attempts}`).sort();
    await publishDueOrganizationEvents(registry);
    expect(await due()).toEqual(["member.added 1", "organization.created 1"]);
    // Not due again at once: the backoff holds it.
    expect(await registry.store.findDueOrganizationEvents(registry.now(), 100)).toEqual([]);
    down = false;
    registry.advance(5_000);
    expect(await publishDueOrganizationEvents(registry)).toBe(2);
    expect(registry.published.map((e) => e.type).sort()).toEqual(["member.added", "organization.created"]);
    expect(await due()).toEqual([]);
  });

  it("a deletion deletes the organization's API keys before it answers, and the event carries the call until identity takes it", async () => {
    const registry = testRegistry();
    const ada = aUser(registry);
    const { organization } = await createOrganization(registry, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} });
    await deleteOrganization(registry, ada.caller(), organization.id);
    expect(registry.apiKeysDeleted).toEqual([organization.id]);
    await publishDueOrganizationEvents(registry);
    // The event's call again: a repeat identity answers by deleting nothing.
    expect(registry.apiKeysDeleted).toEqual([organization.id, organization.id]);

    const { organization: second } = await createOrganization(registry, { caller: ada.caller(), name: "Gears", slug: "gears", metadata: {} });
    registry.apiKeysDown = true;
    await deleteOrganization(registry, ada.caller(), second.id);
    expect(registry.apiKeysDeleted).toEqual([organization.id, organization.id]);
    await publishDueOrganizationEvents(registry);
    // Identity unreachable: the deletion is not published either, and stays for a retry.
    expect(registry.published.filter((e) => e.type === "organization.deleted").map((e) => (e.data as any).organization.id)).toEqual([organization.id]);
    const due = async () => (await registry.store.findDueOrganizationEvents(new Date(Date.UTC(2100, 0, 1)), 100)).map((e) => `${e.type} ${e.attempts}`);
    expect(await due()).toEqual(["organization.deleted 1"]);
    registry.apiKeysDown = false;
    registry.advance(5_000);
    await publishDueOrganizationEvents(registry);
    expect(registry.apiKeysDeleted).toEqual([organization.id, organization.id, second.id]);
    expect(registry.published.filter((e) => e.type === "organization.deleted").map((e) => (e.data as any).organization.id)).toEqual([organization.id, second.id]);
    expect(await due()).toEqual([]);
  });
});
