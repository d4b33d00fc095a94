import { backendLabel, createTestDatabase } from "../../../testing/databases.js";
import { openNotificationStore } from "../src/store/mikro-notification-store.js";
import { notificationStoreContract } from "../src/store/notification-store.contract.js";

notificationStoreContract(backendLabel().split(" ")[0]!, async () => {
  const db = await createTestDatabase("notification");
  return { store: await openNotificationStore(db.url), drop: () => db.drop() };
});
