import { createMemoryNotificationStore } from "./memory-notification-store.js";
import { notificationStoreContract } from "./notification-store.contract.js";

notificationStoreContract("memory", async () => ({ store: createMemoryNotificationStore(), drop: async () => {} }));
