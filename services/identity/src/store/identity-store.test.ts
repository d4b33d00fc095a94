/** The IdentityStore contract on SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { identityStoreContract } from "./identity-store.contract.js";
import { openIdentityStore } from "./mikro-identity-store.js";

onEveryBackend("identity_store", openIdentityStore, identityStoreContract);
