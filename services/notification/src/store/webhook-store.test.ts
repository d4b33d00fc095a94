/** The WebhookStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemoryNotificationStore } from "./memory-notification-store.js";
import { openNotificationStore } from "./mikro-notification-store.js";
import { webhookStoreContract } from "./webhook-store.contract.js";

onEveryBackend("webhook_store", { memory: () => createMemoryNotificationStore(), sql: openNotificationStore }, webhookStoreContract);
