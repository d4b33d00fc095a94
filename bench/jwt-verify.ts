/**
 * Session JWTs, per signing algorithm (EdDSA, ES256, RS256): how fast GET /token issues them through the whole
 * platform (gateway, session; fresh SQLite files, rate limiting off), BENCH_JWT_CONCURRENCY (16) in flight,
 * and how fast a resource server verifies them with jose against a cached remote key set (GET /jwks fetched
 * once), one at a time on one thread, each for BENCH_DURATION seconds (5):
 *
 *   npx tsx bench/jwt-verify.ts            # or: make bench-jwt-verify
 *
 * Figures, not a test.
 */
import { performance } from "node:perf_hooks";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { startPlatform } from "../testing/platform.js";

const SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const CONCURRENCY = Number(process.env.BENCH_JWT_CONCURRENCY ?? 16);
const ALGORITHMS = (process.env.BENCH_JWT_ALGORITHMS ?? "EdDSA,ES256,RS256").split(",");

const rows: string[] = [];
for (const algorithm of ALGORITHMS) {
  const platform = await startPlatform({ redis: false, serviceEnv: { session: { SESSION_JWT_ALGORITHM: algorithm } } });
  try {
    const user = new TestClient(platform.baseURL);
    const signedUp = await user.post("/sign-up/email", { name: "Bench", email: uniqueEmail("jwt-bench"), password: "password-123" });
    const headers = { authorization: `Bearer ${signedUp.body.token as string}` };
    // The first key is made on the first request: not measured.
    const first = await fetch(`${platform.baseURL}/token`, { headers });
    if (first.status !== 200) throw new Error(`GET /token answered ${first.status}`);

    const tokens: string[] = [];
    let issued = 0;
    let refused = 0;
    const until = performance.now() + SECONDS * 1000;
    const issuer = async () => {
      while (performance.now() < until) {
        const res = await fetch(`${platform.baseURL}/token`, { headers });
        if (res.status !== 200) {
          refused++;
          await res.arrayBuffer();
          continue;
        }
        const { token } = (await res.json()) as { token: string };
        if (tokens.length < 1000) tokens.push(token);
        issued++;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, issuer));
    const issueRate = issued / ((performance.now() - t0) / 1000);

    const keys = createRemoteJWKSet(new URL(`${platform.baseURL}/jwks`));
    const options = { issuer: platform.baseURL, audience: platform.baseURL };
    await jwtVerify(tokens[0]!, keys, options);
    let verified = 0;
    const v0 = performance.now();
    const stop = v0 + SECONDS * 1000;
    while (performance.now() < stop) {
      for (let i = 0; i < 100; i++) await jwtVerify(tokens[(verified + i) % tokens.length]!, keys, options);
      verified += 100;
    }
    const verifyRate = verified / ((performance.now() - v0) / 1000);
    rows.push(`| ${algorithm} | ${issueRate.toFixed(0)} | ${refused} | ${verifyRate.toFixed(0)} | ${(1e6 / verifyRate).toFixed(1)} |`);
  } finally {
    await platform.stop();
  }
}
console.log(`Session JWTs: GET /token with ${CONCURRENCY} in flight, jose verification on one thread, ${SECONDS} s each`);
console.log("| algorithm | /token per s | non-200 | verifications per s | us per verification |");
console.log("|---|---|---|---|---|");
for (const row of rows) console.log(row);
// The in-process platform leaves handles open after stop() (timers of its clients); a benchmark has nothing left to wait for.
process.exit(0);
