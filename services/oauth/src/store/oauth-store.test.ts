/** The OAuthStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { createMemoryOAuthStore } from "./memory-oauth-store.js";
import { openOAuthStore } from "./mikro-oauth-store.js";
import { oauthStoreContract } from "./oauth-store.contract.js";

onEveryBackend("oauth_store", { memory: () => createMemoryOAuthStore(), sql: openOAuthStore }, oauthStoreContract);
