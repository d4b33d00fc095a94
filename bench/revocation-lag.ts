/**
 * How long a revoke takes with gateways holding the session in memory, and how long after the revoke
 * answered each gateway's copy was gone (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md):
 * by construction every copy goes before the answer, so that lag is <= 0. The platform runs in this
 * process on its embedded default (SQLite, no Redis); BENCH_WATCHERS (10) gateways' memories watch the
 * session service over mutual TLS, each holding the session; BENCH_REVOKES (200) sign-outs, one at a time.
 */
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { createLogger } from "@auth-platform/runtime/log";
import { tokenLookup } from "@auth-platform/runtime/session-token";
import { sessionMemory } from "../gateway/src/http/session-memory.js";
import { watchSessionEvents } from "../gateway/src/session-watch.js";
import { eventually } from "../testing/eventually.js";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { startPlatform } from "../testing/platform.js";

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 10);
const REVOKES = Number(process.env.BENCH_REVOKES ?? 200);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

const platform = await startPlatform({ redis: false });
const log = createLogger("bench", "warn");
const { lookup } = tokenLookup(platform.env.AUTH_SECRET!);
const gone = new Map<string, number[]>();
const watchers = Array.from({ length: WATCHERS }, () => {
  const client = createGrpcClient(SessionServiceClient, platform.sessionAddress, { tls: platform.grpcTls("gateway"), serverName: "session" });
  const memory = sessionMemory({ maxEntries: 1_000 });
  const dropSessions = memory.dropSessions;
  memory.dropSessions = (lookups) => {
    const at = performance.now();
    for (const l of lookups) gone.get(l)?.push(at);
    dropSessions(lookups);
  };
  return { client, memory, watch: watchSessionEvents({ client, memory, log }) };
});
try {
  const email = uniqueEmail("lag");
  const first = new TestClient(platform.baseURL);
  await first.post("/sign-up/email", { name: "Lag", email, password: "password-123" });
  const durations: number[] = [];
  const lags: number[] = [];
  for (let i = 0; i < REVOKES; i++) {
    const c = new TestClient(platform.baseURL);
    const signedIn = await c.post("/sign-in/email", { email, password: "password-123" });
    const key = lookup(signedIn.body.token as string);
    const held = (await c.get("/get-session")).body;
    // Each watcher holds the session (filled under its lease, as a gateway's read would).
    await eventually(async () => {
      for (const w of watchers) {
        w.memory.fill(key, held, Date.now() + 60_000, w.memory.version());
        if (!w.memory.get(key, "t", Date.now())) throw new Error("no lease yet");
      }
    });
    gone.set(key, []);
    const started = performance.now();
    await c.post("/sign-out");
    const answered = performance.now();
    durations.push(answered - started);
    const drops = gone.get(key)!;
    if (drops.length !== WATCHERS) throw new Error(`only ${drops.length} of ${WATCHERS} watchers dropped the session before the answer`);
    for (const at of drops) lags.push(at - answered);
    gone.delete(key);
  }
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  console.log(`revocation lag: ${WATCHERS} watchers, ${REVOKES} sign-outs, embedded default (SQLite, no Redis), from source`);
  console.log(`sign-out duration: p50 ${ms(percentile(durations, 50))}, p99 ${ms(percentile(durations, 99))}`);
  console.log(`answered -> copy gone, per watcher: p50 ${ms(percentile(lags, 50))}, p99 ${ms(percentile(lags, 99))}, max ${ms(Math.max(...lags))} (<= 0: gone before the answer)`);
} finally {
  for (const w of watchers) {
    w.watch.stop();
    w.client.close();
  }
  await platform.stop();
}
// The in-process platform leaves handles open after stop() (timers of its clients); a benchmark has nothing left to wait for.
process.exit(0);
