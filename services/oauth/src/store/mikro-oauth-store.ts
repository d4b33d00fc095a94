/**
 * The oauth store on MikroORM (SQLite or PostgreSQL). consumeState reads the row, then deletes it with one
 * DELETE: of two callbacks racing with one state only the one whose DELETE removed the row gets it.
 */
import { openStore } from "@auth-platform/runtime/store";
import { SignInStateEntity, type SignInStateRow } from "./entities.js";
import { oauthMigrations } from "./migrations.js";
import type { OAuthStore, SignInState } from "./oauth-store.js";

function toState(row: SignInStateRow): SignInState {
  return {
    state: row.state,
    providerId: row.providerId,
    codeVerifier: row.codeVerifier,
    nonce: row.nonce,
    callbackUrl: row.callbackUrl,
    errorUrl: row.errorUrl ?? null,
    newUserUrl: row.newUserUrl ?? null,
    link: row.linkUserId ? { userId: row.linkUserId, email: row.linkEmail ?? "" } : null,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

export async function openOAuthStore(url: string): Promise<OAuthStore> {
  const store = await openStore({ url, entities: [SignInStateEntity], migrations: oauthMigrations });
  return {
    async saveState(s) {
      await store.em().insert(SignInStateEntity, {
        state: s.state,
        providerId: s.providerId,
        codeVerifier: s.codeVerifier,
        nonce: s.nonce,
        callbackUrl: s.callbackUrl,
        errorUrl: s.errorUrl,
        newUserUrl: s.newUserUrl,
        linkUserId: s.link?.userId ?? null,
        linkEmail: s.link?.email ?? null,
        expiresAt: s.expiresAt,
        createdAt: s.createdAt,
      });
    },
    async consumeState(state) {
      const em = store.em();
      const row = await em.findOne(SignInStateEntity, { state });
      if (!row) return null;
      const deleted = await em.nativeDelete(SignInStateEntity, { state });
      return deleted === 1 ? toState(row) : null;
    },
    async deleteExpired(now) {
      return store.em().nativeDelete(SignInStateEntity, { expiresAt: { $lt: now } });
    },
    close: () => store.close(),
  };
}
