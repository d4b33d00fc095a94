/** The OrganizationStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemoryOrganizationStore } from "./memory-organization-store.js";
import { openOrganizationStore } from "./mikro-organization-store.js";
import { organizationStoreContract } from "./organization-store.contract.js";

onEveryBackend("organization_store", { memory: async () => createMemoryOrganizationStore(), sql: openOrganizationStore }, organizationStoreContract);
