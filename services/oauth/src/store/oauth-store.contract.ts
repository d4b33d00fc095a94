/**
 * The OAuthStore contract: one suite every backend must pass. The factory opens a fresh, migrated, empty
 * store; the suite closes it when done.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { OAuthStore, SignInState } from "./oauth-store.js";

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

export function aState(overrides: Partial<SignInState> = {}): SignInState {
  return {
    state: randomString(32),
    providerId: "github",
    codeVerifier: randomString(128),
    nonce: randomString(32),
    callbackUrl: "http://localhost:5173/dashboard",
    errorUrl: null,
    newUserUrl: null,
    link: null,
    expiresAt: new Date(T0 + 600_000),
    createdAt: new Date(T0),
    ...overrides,
  };
}

export function oauthStoreContract(_backend: string, open: () => Promise<OAuthStore>): void {
  let store: OAuthStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store.close();
  });

  it("answers a saved state once, with every field as saved", async () => {
    const state = aState({
      errorUrl: "http://localhost:5173/oops",
      newUserUrl: "http://localhost:5173/welcome",
      link: { userId: newId(), email: "ada@example.com" },
    });
    await store.saveState(state);
    expect(await store.consumeState(state.state)).toEqual(state);
    expect(await store.consumeState(state.state)).toBeNull();
  });

  it("answers null for an unknown state", async () => {
    expect(await store.consumeState(randomString(32))).toBeNull();
  });

  it("gives a state to only one of many concurrent consumers", async () => {
    const state = aState();
    await store.saveState(state);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.consumeState(state.state)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it("refuses a second state with the same value", async () => {
    const state = aState();
    await store.saveState(state);
    await expect(store.saveState({ ...state, providerId: "google" })).rejects.toThrow();
    expect((await store.consumeState(state.state))?.providerId).toBe("github");
  });

  it("deletes expired states only", async () => {
    const expired = aState({ expiresAt: new Date(T0 - 1) });
    const live = aState({ expiresAt: new Date(T0 + 1) });
    await store.saveState(expired);
    await store.saveState(live);
    expect(await store.deleteExpired(new Date(T0))).toBeGreaterThanOrEqual(1);
    expect(await store.consumeState(expired.state)).toBeNull();
    expect(await store.consumeState(live.state)).not.toBeNull();
  });
}
