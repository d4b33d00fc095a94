/** The SAML state contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import { afterEach, expect, it } from "vitest";
import { onEveryBackend } from "../../../../testing/databases.js";
import { memorySamlStateStore, openSamlStateStore, type SamlStateStore } from "./saml-state-store.js";

const T0 = new Date("2026-11-29T08:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

function request(relayStateHash: string, expiresAt = at(600_000)) {
  return { relayStateHash, providerId: "acme", requestId: `_${relayStateHash}`, callbackUrl: "/", errorCallbackUrl: null, newUserCallbackUrl: "/welcome", expiresAt };
}

onEveryBackend("saml_state", { memory: async () => memorySamlStateStore(), sql: openSamlStateStore }, (_backend, open) => {
  let store: (SamlStateStore & { close(): Promise<void> }) | null = null;
  const fresh = async () => {
    store = await open();
    return store;
  };
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it("gives a pending request back once, and not after it expired", async () => {
    const s = await fresh();
    await s.put(request("h1"));
    await s.put(request("h2", at(1_000)));
    expect(await s.take("h1", T0)).toEqual(request("h1"));
    expect(await s.take("h1", T0)).toBeNull();
    expect(await s.take("h2", at(1_000))).toBeNull();
    expect(await s.take("unknown", T0)).toBeNull();
  });

  it("gives a request to one of two concurrent takers", async () => {
    const s = await fresh();
    await s.put(request("h3"));
    const taken = await Promise.all([s.take("h3", T0), s.take("h3", T0)]);
    expect(taken.filter(Boolean)).toHaveLength(1);
  });

  it("claims an assertion once per provider until it expires", async () => {
    const s = await fresh();
    expect(await s.claim("acme", "_a1", at(60_000), T0)).toBe(true);
    expect(await s.claim("acme", "_a1", at(60_000), T0)).toBe(false);
    expect(await s.claim("globex", "_a1", at(60_000), T0)).toBe(true);
    const both = await Promise.all([s.claim("acme", "_a2", at(60_000), T0), s.claim("acme", "_a2", at(60_000), T0)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    // Past its end the assertion is refused for its time anyway; the claim is let go.
    expect(await s.claim("acme", "_a1", at(120_000), at(60_000))).toBe(true);
  });

  it("gives a handoff back once, with its profile, and not after it expired", async () => {
    const s = await fresh();
    const handoff = {
      handoffHash: "k1",
      providerId: "acme",
      relayStateHash: "h9",
      profile: { accountId: "jane", email: "jane@acme.example", emailVerified: true, name: "Jane" },
      callbackUrl: "https://app.example/",
      errorCallbackUrl: null,
      newUserCallbackUrl: null,
      expiresAt: at(60_000),
    };
    await s.putHandoff(handoff);
    await s.putHandoff({ ...handoff, handoffHash: "k2", relayStateHash: null, expiresAt: at(1_000) });
    const both = await Promise.all([s.takeHandoff("k1", T0), s.takeHandoff("k1", T0)]);
    expect(both.filter(Boolean)).toEqual([handoff]);
    expect(await s.takeHandoff("k2", at(1_000))).toBeNull();
    expect(await s.takeHandoff("unknown", T0)).toBeNull();
  });
});
