/** list-users on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemoryIdentityStore } from "./memory-identity-store.js";
import { openIdentityStore } from "./mikro-identity-store.js";
import { userQueryContract } from "./user-query.contract.js";

onEveryBackend("identity_users", { memory: () => createMemoryIdentityStore(), sql: openIdentityStore }, userQueryContract);
