/**
 * How long a revoke takes with gateways holding the session in memory, and how long after the revoke
 * answered each gateway's copy was gone (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md):
 * by construction every copy goes before the answer, so that lag is <= 0. The platform runs in this
 * process on its embedded default (SQLite, no Redis); BENCH_WATCHERS (10) gateways' memories watch the
 * session service over mutual TLS, each holding the session; BENCH_REVOKES (200) sign-outs, one at a time.
 * BENCH_WATCHER_KIND: `gateway` (the gateway's memory), `internal` (@auth-platform/node's clients under the
 * internal-client certificate, each holding the session in its cache: docs/adr/0078-internal-services-watch-revocations.md)
 * or `both` (the default, one after the other). Prints the load average beside the figures (one machine).
 */
import { readFileSync } from "node:fs";
import { type AuthClient, createAuthClient, watchSessionEvents } from "@auth-platform/node";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { tokenLookup } from "@auth-platform/runtime/session-token";
import { sessionMemory } from "../gateway/src/http/session-memory.js";
import { eventually } from "../testing/eventually.js";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { startPlatform } from "../testing/platform.js";

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 10);
const REVOKES = Number(process.env.BENCH_REVOKES ?? 200);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

const KINDS = (process.env.BENCH_WATCHER_KIND ?? "both") === "both" ? ["gateway", "internal"] : [process.env.BENCH_WATCHER_KIND!];

const platform = await startPlatform({ redis: false });
const { lookup } = tokenLookup(platform.env.AUTH_SECRET!);
/** When each watcher applied the event naming a lookup (performance.now). */
const gone = new Map<string, number[]>();
const told = (lookups: readonly string[]) => {
  const at = performance.now();
  for (const l of lookups) gone.get(l)?.push(at);
};

/** One watcher: `hold` puts the signed-in session in its copy (true once it holds it under a lease). */
interface Watcher {
  hold(token: string, key: string, held: unknown): Promise<boolean>;
  stop(): void;
}

function gatewayWatcher(): Watcher {
  const client = createGrpcClient(SessionServiceClient, platform.sessionAddress, { tls: platform.grpcTls("gateway"), serverName: "session" });
  const memory = sessionMemory({ maxEntries: 1_000 });
  // The gateway's memory under the package's watcher, as gateway/src/start.ts runs it.
  const watch = watchSessionEvents({
    client,
    cache: memory,
    onEvent: (event) => {
      if (event.kind !== "user-changed") told(event.lookups);
    },
    onWarning: (message, fields) => console.warn(message, fields),
  });
  return {
    async hold(_token, key, held) {
      // Filled under its lease, as a gateway's read would.
      memory.fill(key, held as Parameters<typeof memory.fill>[1], Date.now() + 60_000, memory.version());
      return memory.get(key, "t", Date.now()) !== undefined;
    },
    stop() {
      watch.stop();
      client.close();
    },
  };
}

function internalWatcher(): Watcher {
  const tls = platform.grpcTls("internal-client");
  if (tls.kind !== "mtls") throw new Error("the platform runs with mutual TLS");
  const file = (name: string) => readFileSync(`${tls.dir}/${name}`);
  const auth: AuthClient = createAuthClient({
    sessionServiceUrl: platform.sessionAddress,
    tls: { ca: file("ca.crt"), cert: file("tls.crt"), key: file("tls.key") },
    onSessionEvent: (event) => {
      if (event.kind !== "user-changed") told(event.lookups);
    },
  });
  return {
    async hold(token) {
      // A request with the bearer token: GetSession, then the cache holds it (under a lease).
      const result = await auth.authenticate({ headers: { authorization: `Bearer ${token}` } });
      return result.kind === "session" && auth.cacheSize() === 1;
    },
    stop: () => auth.close(),
  };
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
try {
  const email = uniqueEmail("lag");
  const first = new TestClient(platform.baseURL);
  await first.post("/sign-up/email", { name: "Lag", email, password: "password-123" });
  for (const kind of KINDS) {
    const watchers = Array.from({ length: WATCHERS }, kind === "internal" ? internalWatcher : gatewayWatcher);
    try {
      const durations: number[] = [];
      const lags: number[] = [];
      const delivery: number[] = [];
      for (let i = 0; i < REVOKES; i++) {
        const c = new TestClient(platform.baseURL);
        const signedIn = await c.post("/sign-in/email", { email, password: "password-123" });
        const token = signedIn.body.token as string;
        const key = lookup(token);
        const held = (await c.get("/get-session")).body;
        // Each watcher holds the session.
        await eventually(async () => {
          for (const w of watchers) if (!(await w.hold(token, key, held))) throw new Error("no lease yet");
        });
        gone.set(key, []);
        const started = performance.now();
        await c.post("/sign-out");
        const answered = performance.now();
        durations.push(answered - started);
        const drops = gone.get(key)!;
        if (drops.length !== WATCHERS) throw new Error(`only ${drops.length} of ${WATCHERS} watchers dropped the session before the answer`);
        for (const at of drops) lags.push(at - answered);
        // Sign-out started -> the last watcher told: the push's own lag, one figure per revoke.
        delivery.push(Math.max(...drops) - started);
        gone.delete(key);
      }
      console.log(`revocation lag: ${WATCHERS} ${kind} watchers, ${REVOKES} sign-outs, embedded default (SQLite, no Redis), from source`);
      console.log(`  sign-out duration (every watcher told before it answers): p50 ${ms(percentile(durations, 50))}, p99 ${ms(percentile(durations, 99))}`);
      console.log(`  sign-out sent -> last watcher told: p50 ${ms(percentile(delivery, 50))}, p99 ${ms(percentile(delivery, 99))}`);
      console.log(
        `  answered -> copy gone, per watcher: p50 ${ms(percentile(lags, 50))}, p99 ${ms(percentile(lags, 99))}, max ${ms(Math.max(...lags))} (<= 0: gone before the answer)`,
      );
    } finally {
      for (const w of watchers) w.stop();
    }
  }
  console.log(`loadavg: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
} finally {
  await platform.stop();
}
// The in-process platform leaves handles open after stop() (timers of its clients); a benchmark has nothing left to wait for.
process.exit(0);
