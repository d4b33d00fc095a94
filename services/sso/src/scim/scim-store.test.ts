/** The ScimStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { MemoryScimStore } from "./memory-scim-store.js";
import { openScimStore } from "./mikro-scim-store.js";
import { scimStoreContract } from "./scim-store.contract.js";

onEveryBackend("scim_store", { memory: async () => Object.assign(new MemoryScimStore(), { close: async () => {} }), sql: openScimStore }, scimStoreContract);
