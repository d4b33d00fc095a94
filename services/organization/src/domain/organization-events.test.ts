/** The organization event worker on the memory store: publishes, retries with backoff, never drops an event. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { aUser, testRegistry } from "../../test/test-registry.js";
import { createOrganization } from "./organizations.js";
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
});
