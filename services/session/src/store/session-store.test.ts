/** The SessionStore contract on SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { openSessionStore } from "./mikro-session-store.js";
import { sessionStoreContract } from "./session-store.contract.js";

onEveryBackend("session_store", openSessionStore, sessionStoreContract);
