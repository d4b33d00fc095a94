/** The AuditStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { auditStoreContract } from "./audit-store.contract.js";
import { createMemoryAuditStore } from "./memory-audit-store.js";
import { openAuditStore } from "./mikro-audit-store.js";

onEveryBackend("admin_store", { memory: () => createMemoryAuditStore(), sql: (url) => openAuditStore(url) }, auditStoreContract);
