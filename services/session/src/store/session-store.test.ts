/** The SessionStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { tokenVault } from "@auth-platform/runtime/session-token";
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemorySessionStore } from "./memory-session-store.js";
import { openSessionStore } from "./mikro-session-store.js";
import { sessionStoreContract } from "./session-store.contract.js";

const vault = tokenVault("contract-secret-0123456789-0123456789");
onEveryBackend("session_store", { memory: () => createMemorySessionStore(vault), sql: (url) => openSessionStore(url, vault) }, sessionStoreContract);
