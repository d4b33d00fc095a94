/** The DomainStore contract on the sso store: memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { domainStoreContract } from "./domain-store.contract.js";
import { createMemorySsoStore } from "./memory-sso-store.js";
import { openSsoStore } from "./mikro-sso-store.js";

onEveryBackend("sso_domain_store", { memory: async () => createMemorySsoStore(), sql: openSsoStore }, domainStoreContract);
