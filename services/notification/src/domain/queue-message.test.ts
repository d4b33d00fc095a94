import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { notificationConfig } from "../config.js";
import { createMemoryNotificationStore } from "../store/memory-notification-store.js";
import { queueMessage } from "./queue-message.js";

function setup() {
  let wakes = 0;
  const deps = {
    config: notificationConfig({ APP_NAME: "Acme", AUTH_APP_URL: "https://app.acme.test" }),
    store: createMemoryNotificationStore(),
    now: () => new Date("2030-01-01T00:00:00.000Z"),
    wake: () => void wakes++,
  };
  return { deps, wakes: () => wakes };
}

const url = "https://acme.test/reset?token=t1";

describe("queueMessage", () => {
  it("renders the template and stores a pending message due now, then wakes the worker", async () => {
    const { deps, wakes } = setup();
    const { id, created } = await queueMessage(deps, { to: " Ada@Example.com ", template: "password-reset", variables: { url } });
    expect(created).toBe(true);
    expect(wakes()).toBe(1);
    const stored = await deps.store.findById(id);
    expect(stored).toMatchObject({ recipient: "ada@example.com", template: "password-reset", status: "pending", attempts: 0, links: [url], nextAttemptAt: deps.now() });
    expect(stored!.subject).toBe("Reset your Acme password");
    expect(stored!.text).toContain("https://app.acme.test");
  });

  it("answers the first message's id for a repeated idempotency key, storing and waking nothing", async () => {
    const { deps, wakes } = setup();
    const first = await queueMessage(deps, { to: "ada@example.com", template: "password-reset", variables: { url }, idempotencyKey: "reset:1" });
    const again = await queueMessage(deps, { to: "ada@example.com", template: "password-reset", variables: { url }, idempotencyKey: "reset:1" });
    expect(again).toEqual({ id: first.id, created: false });
    expect(wakes()).toBe(1);
    expect(await deps.store.list({ limit: 10 })).toHaveLength(1);
  });

  it("turns a missing variable into VALIDATION_ERROR naming it", async () => {
    const { deps } = setup();
    const attempt = queueMessage(deps, { to: "ada@example.com", template: "organization-invitation", variables: { url } });
    await expect(attempt).rejects.toEqual(new AuthError("VALIDATION_ERROR", "variables.organization_name is required for organization-invitation"));
  });
});
