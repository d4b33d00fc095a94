import { describe, expect, it } from "vitest";
import type { Logger } from "@auth-platform/runtime/log";
import { notificationConfig } from "../config.js";
import { createMemoryNotificationStore } from "../store/memory-notification-store.js";
import { aMessage } from "../store/notification-store.contract.js";
import { deliverDue, LEASE_MS, startDeliveryWorker } from "./delivery-worker.js";
import { DeliveryFailure, type MailTransport, type OutgoingMail } from "./ports.js";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A transport that fails while `down`, records what it sent, and can be made slow (each send yields to the event loop). */
function fakeTransport() {
  const sent: OutgoingMail[] = [];
  const transport = {
    kind: "smtp" as const,
    down: false as false | "transient" | "permanent",
    slow: false,
    sent,
    async send(mail: OutgoingMail) {
      if (transport.slow) await new Promise((resolve) => setImmediate(resolve));
      if (transport.down) throw new DeliveryFailure("refused", { permanent: transport.down === "permanent" });
      sent.push(mail);
    },
    async close() {},
  };
  return transport satisfies MailTransport;
}

function setup(env: Record<string, string> = {}) {
  let clock = new Date("2030-01-01T00:00:00.000Z").getTime();
  const deps = {
    config: notificationConfig({ MAIL_FROM: "Acme <no-reply@acme.test>", NOTIFICATION_RETRY_BASE_MS: "1000", NOTIFICATION_RETRY_MAX_MS: "8000", ...env }),
    store: createMemoryNotificationStore(),
    transport: fakeTransport(),
    log: quiet,
    now: () => new Date(clock),
    random: () => 0,
  };
  return { deps, advance: (ms: number) => (clock += ms) };
}

describe("deliverDue", () => {
  it("sends a due message once, with a Message-ID built from its outbox id, and marks it delivered", async () => {
    const { deps } = setup();
    const message = aMessage({ nextAttemptAt: deps.now(), createdAt: deps.now() });
    await deps.store.insert(message);
    expect(await deliverDue(deps)).toBe(1);
    expect(await deliverDue(deps)).toBe(0);
    expect(deps.transport.sent).toHaveLength(1);
    expect(deps.transport.sent[0]).toMatchObject({ messageId: `<${message.id}@acme.test>`, to: message.recipient, subject: message.subject });
    // Sent through SMTP: the bodies and links (live secrets) are erased from the outbox.
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "delivered", attempts: 1, deliveredAt: deps.now(), text: "", html: "", links: [] });
  });

  it("keeps the bodies in the development outbox", async () => {
    const { deps } = setup();
    const outbox = { ...deps, transport: { kind: "development-outbox" as const, send: async () => {}, close: async () => {} } };
    const message = aMessage({ nextAttemptAt: deps.now() });
    await deps.store.insert(message);
    await deliverDue(outbox);
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "delivered", text: message.text, links: message.links });
  });

  it("retries a transient failure with growing, capped delays, then delivers", async () => {
    const { deps, advance } = setup();
    const message = aMessage({ nextAttemptAt: deps.now() });
    await deps.store.insert(message);
    deps.transport.down = "transient";
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      await deliverDue(deps);
      const row = (await deps.store.findById(message.id))!;
      delays.push(row.nextAttemptAt.getTime() - deps.now().getTime());
      expect(await deliverDue(deps)).toBe(0); // not due before its time
      advance(delays.at(-1)!);
    }
    // random() = 0 gives half the nominal delay: 1 s, 2 s, 4 s, 8 s capped.
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "pending", attempts: 6, lastError: "refused" });

    deps.transport.down = false;
    await deliverDue(deps);
    expect(deps.transport.sent).toHaveLength(1);
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "delivered", attempts: 7 });
  });

  it("gives up after maxAttempts", async () => {
    const { deps, advance } = setup({ NOTIFICATION_MAX_ATTEMPTS: "3" });
    const message = aMessage({ nextAttemptAt: deps.now() });
    await deps.store.insert(message);
    deps.transport.down = "transient";
    for (let i = 0; i < 5; i++) {
      await deliverDue(deps);
      advance(60_000);
    }
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "failed", attempts: 3 });
  });

  it("gives up at once on a permanent refusal", async () => {
    const { deps } = setup();
    const message = aMessage({ nextAttemptAt: deps.now() });
    await deps.store.insert(message);
    deps.transport.down = "permanent";
    await deliverDue(deps);
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "failed", attempts: 1 });
  });

  it("sends each message once when two workers run side by side", async () => {
    const { deps } = setup();
    deps.transport.slow = true;
    for (let i = 0; i < 25; i++) await deps.store.insert(aMessage({ nextAttemptAt: deps.now() }));
    for (let round = 0; round < 4; round++) await Promise.all([deliverDue(deps), deliverDue(deps)]);
    expect(deps.transport.sent).toHaveLength(25);
    expect(new Set(deps.transport.sent.map((m) => m.messageId)).size).toBe(25);
  });

  it("resends, with the same Message-ID, a message whose worker died holding the lease", async () => {
    const { deps, advance } = setup();
    const message = aMessage({ nextAttemptAt: deps.now() });
    await deps.store.insert(message);
    expect(await deps.store.claim(message.id, 0, "crashed-worker", deps.now(), new Date(deps.now().getTime() + LEASE_MS))).toBe(true);
    expect(await deliverDue(deps)).toBe(0);
    advance(LEASE_MS);
    await deliverDue(deps);
    expect(deps.transport.sent.map((m) => m.messageId)).toEqual([`<${message.id}@acme.test>`]);
    expect(await deps.store.findById(message.id)).toMatchObject({ status: "delivered", attempts: 2 });
  });
});

describe("startDeliveryWorker", () => {
  it("delivers at once when woken, polls for the rest, and stops cleanly", async () => {
    const { deps } = setup({ NOTIFICATION_POLL_INTERVAL_MS: "60000" });
    const realTime = { ...deps, now: () => new Date() };
    const worker = startDeliveryWorker(realTime);
    await realTime.store.insert(aMessage({ nextAttemptAt: new Date() }));
    worker.wake();
    await expect.poll(() => realTime.transport.sent.length, { timeout: 2_000 }).toBe(1);
    await worker.stop();
    await realTime.store.insert(aMessage({ nextAttemptAt: new Date() }));
    worker.wake();
    // A pass a stopped worker started would be awaited here.
    await worker.stop();
    expect(realTime.transport.sent).toHaveLength(1);
  });
});
