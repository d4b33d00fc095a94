/** The IdentityStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { onEveryBackend } from "../../../../testing/databases.js";
import { contractClock, identityStoreContract } from "./identity-store.contract.js";
import { apiKeyStoreContract } from "./api-key-store.contract.js";
import { emailCodeStoreContract } from "./email-code-store.contract.js";
import { passkeyStoreContract } from "./passkey-store.contract.js";
import { twoFactorStoreContract } from "./two-factor-store.contract.js";
import { createMemoryIdentityStore } from "./memory-identity-store.js";
import { openIdentityStore } from "./mikro-identity-store.js";

onEveryBackend(
  "identity_store",
  { memory: () => createMemoryIdentityStore({ now: contractClock.now }), sql: (url) => openIdentityStore(url, { now: contractClock.now }) },
  identityStoreContract,
);
onEveryBackend("identity_two_factor", { memory: () => createMemoryIdentityStore(), sql: (url) => openIdentityStore(url) }, twoFactorStoreContract);
onEveryBackend("identity_email_code", { memory: () => createMemoryIdentityStore(), sql: (url) => openIdentityStore(url) }, emailCodeStoreContract);
onEveryBackend("identity_passkeys", { memory: () => createMemoryIdentityStore(), sql: (url) => openIdentityStore(url) }, passkeyStoreContract);
onEveryBackend("identity_api_keys", { memory: () => createMemoryIdentityStore(), sql: (url) => openIdentityStore(url) }, apiKeyStoreContract);
