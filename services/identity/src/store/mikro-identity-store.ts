/** The identity store on MikroORM (SQLite or PostgreSQL). Unique violations become catalogue errors here. */
import { AuthError } from "@auth-platform/proto/errors";
import { isUniqueViolation, openStore } from "@auth-platform/runtime/store";
import { AccountEntity, type AccountRow, UserEntity, type UserRow } from "./entities.js";
import type { AccountRecord, IdentityStore, UserPatch, UserRecord } from "./identity-store.js";
import { identityMigrations } from "./migrations.js";

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emailVerified: Boolean(row.emailVerified),
    image: row.image ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    username: row.username ?? null,
    displayUsername: row.displayUsername ?? null,
    role: row.role ?? null,
    banned: Boolean(row.banned),
    banReason: row.banReason ?? null,
    banExpires: row.banExpires ?? null,
    extraFields: JSON.parse(row.extraFields || "{}") as Record<string, unknown>,
  };
}

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    accountId: row.accountId,
    providerId: row.providerId,
    userId: row.userId,
    password: row.password ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function openIdentityStore(url: string): Promise<IdentityStore> {
  const store = await openStore({ url, entities: [UserEntity, AccountEntity], migrations: identityMigrations });
  return {
    async createUserWithAccount(user, account) {
      try {
        await store.em().transactional(async (em) => {
          em.create(UserEntity, { ...user, extraFields: JSON.stringify(user.extraFields) });
          em.create(AccountEntity, { ...account, accessToken: null, refreshToken: null, idToken: null, scope: null });
        });
        return user;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const message = String((error as Error).message);
        if (user.username && /username/i.test(message)) throw new AuthError("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
        throw new AuthError("USER_ALREADY_EXISTS");
      }
    },
    async findUserById(id) {
      const row = await store.em().findOne(UserEntity, { id });
      return row ? toUser(row) : null;
    },
    async findUserByEmail(email) {
      const row = await store.em().findOne(UserEntity, { email });
      return row ? toUser(row) : null;
    },
    async findUserByUsername(username) {
      const row = await store.em().findOne(UserEntity, { username });
      return row ? toUser(row) : null;
    },
    async findAccount(userId, providerId) {
      const row = await store.em().findOne(AccountEntity, { userId, providerId }, { orderBy: { createdAt: "asc" } });
      return row ? toAccount(row) : null;
    },
    async updateUser(id, patch) {
      const em = store.em();
      const row = await em.findOne(UserEntity, { id });
      if (!row) return null;
      const { extraFields, ...rest } = patch;
      em.assign(row, { ...rest, ...(extraFields ? { extraFields: JSON.stringify(extraFields) } : {}), updatedAt: new Date() });
      try {
        await em.flush();
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError(/username/i.test(String(error)) ? "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER" : "USER_ALREADY_EXISTS");
        throw error;
      }
      return toUser(row);
    },
    close: () => store.close(),
  };
}
