/** The custom-role part of the OrganizationStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemoryOrganizationStore } from "./memory-organization-store.js";
import { openOrganizationStore } from "./mikro-organization-store.js";
import { roleStoreContract } from "./role-store.contract.js";

onEveryBackend("organization_roles", { memory: async () => createMemoryOrganizationStore(), sql: openOrganizationStore }, roleStoreContract);
