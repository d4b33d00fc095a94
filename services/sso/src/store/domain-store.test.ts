/** The DomainStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { openStore } from "@auth-platform/runtime/store";
import { onEveryBackend } from "../../../../testing/databases.js";
import { DomainEntity } from "./domain-entities.js";
import { CreateDomain } from "./domain-migrations.js";
import { domainStoreContract } from "./domain-store.contract.js";
import { memoryDomainStore } from "./memory-domain-store.js";
import { mikroDomainStore } from "./mikro-domain-store.js";

onEveryBackend(
  "sso_domain_store",
  {
    memory: async () => ({ ...memoryDomainStore(), close: async () => {} }),
    sql: async (url) => {
      const store = await openStore({ url, entities: [DomainEntity], migrations: [{ name: "0002-create-domain", class: CreateDomain }] });
      return { ...mikroDomainStore(store), close: () => store.close() };
    },
  },
  domainStoreContract,
);
