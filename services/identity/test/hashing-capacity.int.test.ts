/**
 * Sign-in beyond hashing capacity: with one scrypt derivation at a time and two waiting, a burst of sign-ins
 * gets fast 503s for the excess while the accepted ones are answered; known and unknown users alike. Each
 * refusal says when to come back (Retry-After, from the queue's own estimate) and carries a request id.
 * A sign-in whose client goes away while it waits for the hashing is dropped, not hashed for nobody.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HOLD_MAX_MS } from "@auth-platform/proto/rpc-client";
import { backendLabel } from "../../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../../testing/http.js";
import { sample, scrapeMetrics } from "../../../testing/metrics.js";
import { type Platform, startPlatform } from "../../../testing/platform.js";

const PASSWORD = "capacity-password-1";
const BURST = 12;

let platform: Platform;
const logs: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  platform = await startPlatform({
    env: { IDENTITY_HASHING_CONCURRENCY: "1", IDENTITY_HASHING_QUEUE_LIMIT: "2", METRICS_PORT: "0", LOG_LEVEL: "warn" },
    logs: (entry) => void logs.push(entry),
  });
});
afterAll(async () => {
  await platform?.stop();
});

/** One sample of identity's metrics. */
const identityMetric = async (name: string, labels?: Record<string, string>) => (await scrapeMetrics(platform.services.identity.metricsPort)).get(sample(name, labels)) ?? 0;
const hashesWaiting = () => identityMetric("auth_password_hash_queue_depth", { state: "waiting" });

describe(`hashing for clients that went away (${backendLabel()})`, () => {
  it("drops the sign-ins still waiting for the hashing when their clients disconnect", async () => {
    const client = new TestClient(platform.baseURL);
    const email = uniqueEmail("gone");
    expect((await client.post("/sign-up/email", { name: "Gone", email, password: PASSWORD })).status).toBe(200);
    const hashedBefore = await identityMetric("auth_password_hash_seconds_count");

    // One sign-in takes the one place; two more wait (the queue's limit), and their clients hang up.
    const signIn = (signal?: AbortSignal) =>
      fetch(`${platform.baseURL}/sign-in/email`, {
        method: "POST",
        signal,
        headers: { "content-type": "application/json", origin: platform.origin },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
    const first = signIn();
    const leaving = new AbortController();
    const ghosts = [signIn(leaving.signal), signIn(leaving.signal)].map((p) => p.catch((error: Error) => error.name));
    await vi.waitFor(async () => expect(await hashesWaiting()).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 5 });
    const waitingWhenLeft = await hashesWaiting();
    leaving.abort();
    expect(await Promise.all(ghosts)).toEqual(["AbortError", "AbortError"]);
    // They leave the queue at once, not when their turn comes.
    await vi.waitFor(async () => expect(await hashesWaiting()).toBe(0), { timeout: 1_000, interval: 5 });

    expect((await first).status).toBe(200);
    // Nothing was unavailable: the gateway does not log the 503s nobody was left to read. (This file's
    // first test, so no earlier 503 has used up the gateway's one "service unavailable" line per interval.)
    expect(logs.filter((entry) => entry.service === "gateway" && entry.msg === "service unavailable")).toEqual([]);
    await vi.waitFor(async () => expect(await identityMetric("auth_password_hash_queue_depth", { state: "running" })).toBe(0), { timeout: 5_000, interval: 5 });
    // The first sign-in was hashed, and of the two that left at most the ones that had started by then.
    const hashedForGhosts = (await identityMetric("auth_password_hash_seconds_count")) - hashedBefore - 1;
    expect(waitingWhenLeft).toBeGreaterThanOrEqual(1);
    expect(hashedForGhosts).toBeLessThanOrEqual(2 - waitingWhenLeft + 1);
    expect(hashedForGhosts).toBeLessThan(2);
  });
});

describe(`hashing capacity (${backendLabel()})`, () => {
  it("answers a burst beyond capacity with fast 503s, and the accepted sign-ins succeed", async () => {
    const client = new TestClient(platform.baseURL);
    const known = uniqueEmail("capacity");
    expect((await client.post("/sign-up/email", { name: "Capacity", email: known, password: PASSWORD })).status).toBe(200);

    // Known and unknown users interleaved, all sent at once.
    const emails = Array.from({ length: BURST }, (_, i) => (i % 2 === 0 ? known : uniqueEmail("capacity-unknown")));
    const started = performance.now();
    const answers = await Promise.all(
      emails.map(async (email) => {
        const response = await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: PASSWORD }, { origin: platform.origin });
        return { email, status: response.status, body: response.body as { code?: string }, headers: response.headers, ms: performance.now() - started };
      }),
    );

    const refused = answers.filter((a) => a.status === 503);
    const accepted = answers.filter((a) => a.status !== 503);
    // The accepted ones: a known user signs in, an unknown one is told the pair is wrong.
    for (const answer of accepted) expect(answer.status).toBe(answer.email === known ? 200 : 401);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    // One running and two waiting take the first three; the rest get in only as places come free. How many
    // do depends on how the burst's arrivals spread over the hashing time (a loaded machine spreads them,
    // and the gateway holds a sign-in that arrives just after a refusal for up to HOLD_MAX_MS, then asks
    // once), so the count is not fixed; some are always refused.
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expect(answer.body).toEqual({ code: "SERVICE_UNAVAILABLE", message: "Service unavailable" });
      // Whole seconds, at least 1; a browser script may read it (CORS exposes it, like x-retry-after).
      expect(answer.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
      expect(answer.headers.get("access-control-expose-headers")?.split(/,\s*/)).toContain("retry-after");
      expect(answer.headers.get("x-request-id")).toBeTruthy();
    }
    // Refused at once or after the gateway's short hold, never after queueing towards the 5 s deadline:
    // every 503 came back before the last accepted sign-in, which waited for the hashing ahead of it.
    const lastAccepted = Math.max(...accepted.map((a) => a.ms));
    const lastRefused = Math.max(...refused.map((a) => a.ms));
    expect(lastRefused).toBeLessThan(lastAccepted);
    expect(lastRefused).toBeLessThan(HOLD_MAX_MS + 1_500);

    // Capacity frees as the burst drains: the next sign-in goes through.
    expect((await client.post("/sign-in/email", { email: known, password: PASSWORD })).status).toBe(200);
  });
});
