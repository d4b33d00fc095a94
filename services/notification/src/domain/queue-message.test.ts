import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import type { Logger } from "@auth-platform/runtime/log";
import { notificationConfig } from "../config.js";
import { createMemoryNotificationStore } from "../store/memory-notification-store.js";
import { queueMessage } from "./queue-message.js";

function setup(env: Record<string, string> = {}) {
  let wakes = 0;
  let clock = new Date("2030-01-01T00:00:00.000Z").getTime();
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const log: Logger = { debug() {}, info() {}, warn: (message, fields) => void warnings.push({ message, fields }), error() {} };
  const deps = {
    config: notificationConfig({ APP_NAME: "Acme", AUTH_APP_URL: "https://app.acme.test", ...env }),
    log,
    store: createMemoryNotificationStore(),
    now: () => new Date(clock),
    wake: () => void wakes++,
  };
  return { deps, wakes: () => wakes, warnings, advance: (seconds: number) => (clock += seconds * 1000) };
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

  it("suppresses mail to a recipient over the limit (default 5 per 15 minutes), whatever the template, silently to the caller", async () => {
    const { deps, wakes, warnings, advance } = setup();
    expect(deps.config.recipientLimit).toEqual({ limit: 5, windowSeconds: 900 });
    const templates = ["password-reset", "email-verification", "password-reset", "password-reset", "password-reset"] as const;
    for (const template of templates) expect((await queueMessage(deps, { to: "Ada@Example.com", template, variables: { url } })).created).toBe(true);
    const over = await queueMessage(deps, { to: "ada@example.com ", template: "password-reset", variables: { url } });
    expect(over).toEqual({ id: "", created: false, suppressed: true });
    expect(wakes()).toBe(5);
    expect(await deps.store.list({ recipient: "ada@example.com", limit: 50 })).toHaveLength(5);
    // Logged for operators, without the address.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe("mail suppressed: recipient over its limit");
    expect(JSON.stringify(warnings[0]!.fields)).not.toMatch(/ada|example/i);
    // Another recipient is not affected; a retried idempotent call is answered without counting.
    expect((await queueMessage(deps, { to: "grace@example.com", template: "password-reset", variables: { url }, idempotencyKey: "g1" })).created).toBe(true);
    for (let i = 0; i < 6; i++)
      expect((await queueMessage(deps, { to: "grace@example.com", template: "password-reset", variables: { url }, idempotencyKey: "g1" })).created).toBe(false);
    expect((await queueMessage(deps, { to: "grace@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
    // The window slides: 15 minutes after the first sends, the recipient may get mail again.
    advance(899);
    expect((await queueMessage(deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).suppressed).toBe(true);
    advance(1);
    expect((await queueMessage(deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
  });

  it("keeps a separate allowance for sign-in codes: a stranger's reset requests cannot keep the user's codes from arriving", async () => {
    const { deps } = setup();
    for (let i = 0; i < 5; i++) expect((await queueMessage(deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
    expect((await queueMessage(deps, { to: "ada@example.com", template: "email-verification", variables: { url } })).suppressed).toBe(true);
    // The sign-in code still goes out, and has a limit of its own.
    for (let i = 0; i < 5; i++) expect((await queueMessage(deps, { to: "ada@example.com", template: "sign-in-code", variables: { code: "123456" } })).created).toBe(true);
    expect((await queueMessage(deps, { to: "ada@example.com", template: "sign-in-code", variables: { code: "123456" } })).suppressed).toBe(true);
  });

  it("takes its limit and window from the configuration; 0 turns the limit off", async () => {
    const strict = setup({ NOTIFICATION_RECIPIENT_LIMIT: "1", NOTIFICATION_RECIPIENT_WINDOW: "60" });
    expect((await queueMessage(strict.deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
    expect((await queueMessage(strict.deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).suppressed).toBe(true);
    strict.advance(60);
    expect((await queueMessage(strict.deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
    const off = setup({ NOTIFICATION_RECIPIENT_LIMIT: "0" });
    for (let i = 0; i < 20; i++) expect((await queueMessage(off.deps, { to: "ada@example.com", template: "password-reset", variables: { url } })).created).toBe(true);
  });
});
