/** The SsoStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemorySsoStore } from "./memory-sso-store.js";
import { openSsoStore } from "./mikro-sso-store.js";
import { ssoStoreContract } from "./sso-store.contract.js";

onEveryBackend("sso_store", { memory: async () => createMemorySsoStore(), sql: openSsoStore }, ssoStoreContract);
