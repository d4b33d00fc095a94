/** The ScimStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set), over the sso store's connection. */
import { onEveryBackend } from "../../../../testing/databases.js";
import { openSsoStore } from "../store/mikro-sso-store.js";
import { MemoryScimStore } from "./memory-scim-store.js";
import { scimStoreContract } from "./scim-store.contract.js";

onEveryBackend(
  "scim_store",
  {
    memory: async () => Object.assign(new MemoryScimStore(), { close: async () => {} }),
    sql: async (url: string) => {
      // The SCIM tables on the sso store's connection, as the service opens them.
      const store = await openSsoStore(url);
      return Object.assign(store.scim, { close: () => store.close() });
    },
  },
  scimStoreContract,
);
