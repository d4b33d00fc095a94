/** Builds the notification service's dependencies once: config, outbox store, transport, clock, worker. */
import type { Logger } from "@auth-platform/runtime/log";
import { gaugeSources } from "@auth-platform/runtime/metrics";
import type { NotificationConfig } from "./config.js";
import { type DeliveryWorker, startDeliveryWorker } from "./domain/delivery-worker.js";
import type { Registry } from "./domain/ports.js";
import { startRecipientSlotPurge } from "./domain/recipient-limit.js";
import { startWebhookWorker } from "./domain/webhook-delivery.js";
import { secretBox } from "@auth-platform/runtime/secret-box";
import type { PollingWorker } from "@auth-platform/runtime/polling-worker";
import { createWebhookSender } from "./transport/webhook-http.js";
import { openNotificationStore } from "./store/mikro-notification-store.js";
import { createDevelopmentOutbox } from "./transport/development-outbox.js";
import { checkSmtp, createSmtpTransport } from "./transport/smtp-transport.js";
import { createUndeliverableTransport } from "./transport/undeliverable.js";

export async function buildRegistry(config: NotificationConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openNotificationStore(config.databaseUrl);
  let transport;
  if (config.smtpUrl) {
    transport = createSmtpTransport({ url: config.smtpUrl, from: config.mailFrom });
    void checkSmtp(config.smtpUrl, log);
  } else if (config.production) {
    // Why: the development outbox keeps and logs live links; production must do neither.
    transport = createUndeliverableTransport();
    log.error("SMTP_URL is not set: no mail can be delivered; every message fails and is not kept");
  } else {
    transport = createDevelopmentOutbox(log);
    log.warn("SMTP_URL is not set: mail goes to the development outbox and is not delivered (links are logged)");
  }
  let worker: DeliveryWorker | undefined;
  let webhooks: PollingWorker | undefined;
  const registry: Registry = {
    config,
    store,
    transport,
    log,
    now: () => new Date(),
    random: Math.random,
    wake: () => worker?.wake(),
    webhookSecrets: secretBox(config.secret, { salt: "auth-platform/notification", info: "webhook-secret" }),
    webhookSender: createWebhookSender(config.webhooks),
    wakeWebhooks: () => webhooks?.wake(),
  };
  worker = startDeliveryWorker(registry);
  webhooks = startWebhookWorker(registry);
  gaugeSources.outbox(async () => {
    const { count, oldestCreatedAt } = await store.pendingStats();
    return { depth: count, oldestAgeSeconds: oldestCreatedAt ? Math.max(0, (registry.now().getTime() - oldestCreatedAt.getTime()) / 1000) : 0 };
  });
  const stopPurge = startRecipientSlotPurge(registry);
  return {
    ...registry,
    async close() {
      stopPurge();
      await worker.stop();
      await webhooks.stop();
      await transport.close();
      await store.close();
    },
  };
}
