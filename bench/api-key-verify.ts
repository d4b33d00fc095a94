/**
 * API key verification throughput (docs/adr/0075-api-keys.md): one key verified over and over, first over
 * identity's VerifyApiKey RPC as an internal service calls it (workload internal-client, mutual TLS), then
 * over the gateway's POST /api-key/verify, BENCH_API_KEY_CONCURRENCY (32) in flight for
 * BENCH_API_KEY_SECONDS (10) each, through the whole in-process platform (fresh SQLite files, rate
 * limiting off, no rate limit on the key):
 *
 *   npx tsx bench/api-key-verify.ts
 *
 * Prints verifications per second and p50/p99 for each path. Figures, not a test.
 */
import { performance } from "node:perf_hooks";
import { ApiKeyServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { call } from "@auth-platform/runtime/rpc";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { startPlatform } from "../testing/platform.js";

const CONCURRENCY = Number(process.env.BENCH_API_KEY_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_API_KEY_SECONDS ?? 10);

/** Runs `once` from CONCURRENCY loops for SECONDS; answers the rate, the latencies and the failures. */
async function measure(once: () => Promise<boolean>) {
  const latencies: number[] = [];
  let failed = 0;
  const until = performance.now() + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      if (!(await once())) failed++;
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
  return `${(latencies.length / elapsed).toFixed(0)} verifications/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, failed ${failed}`;
}

const platform = await startPlatform({ redis: false });
try {
  const owner = new TestClient(platform.baseURL);
  await owner.post("/sign-up/email", { name: "Owner", email: uniqueEmail("api-key-bench"), password: "password-123" });
  const { key } = (await owner.post("/api-key/create", { name: "bench" })).body as { key: string };
  const rpc = createGrpcClient(ApiKeyServiceClient, platform.env.IDENTITY_SERVICE_URL!, { tls: platform.grpcTls("internal-client"), serverName: "identity" });
  const body = JSON.stringify({ key });
  console.log(`API key verification: ${CONCURRENCY} in flight, ${SECONDS} s each`);
  console.log(`  RPC  VerifyApiKey     ${await measure(async () => (await call(rpc, rpc.verifyApiKey, { key, permissions: {} })).valid)}`);
  console.log(
    `  HTTP /api-key/verify  ${await measure(async () => {
      const res = await fetch(`${platform.baseURL}/api-key/verify`, { method: "POST", headers: { "content-type": "application/json" }, body });
      return ((await res.json()) as { valid: boolean }).valid;
    })}`,
  );
  rpc.close();
} finally {
  await platform.stop();
}
// The in-process platform leaves handles open after stop() (timers of its clients); a benchmark has nothing left to wait for.
process.exit(0);
