/**
 * SCIM bulk provisioning: an IdP's first sync of BENCH_SCIM_USERS (10,000) users, one POST /scim/v2/Users
 * each as Okta and Entra ID send them, BENCH_SCIM_CONCURRENCY (16) in flight, through the whole platform
 * (gateway, sso, identity, organization, session; fresh SQLite files, rate limiting off):
 *
 *   npx tsx bench/scim-provisioning.ts
 *
 * Prints the time and the rate, then reads the last page to check every user landed. Figures, not a test.
 */
import { performance } from "node:perf_hooks";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { startPlatform } from "../testing/platform.js";

const USERS = Number(process.env.BENCH_SCIM_USERS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_SCIM_CONCURRENCY ?? 16);

const platform = await startPlatform({ redis: false });
try {
  const owner = new TestClient(platform.baseURL);
  await owner.post("/sign-up/email", { name: "Owner", email: uniqueEmail("scim-bench"), password: "password-123" });
  const org = await owner.post("/organization/create", { name: "Bench", slug: `bench-${Date.now().toString(36)}` });
  const { token } = (await owner.post("/organization/scim/generate-token", { organizationId: org.body.id, name: "bench" })).body as { token: string };
  const run = Date.now().toString(36);
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < USERS) {
      const i = next++;
      const userName = `user-${run}-${i}@bench.example`;
      const res = await fetch(`${platform.baseURL}/scim/v2/Users`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
        body: JSON.stringify({
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
          userName,
          externalId: `ext-${i}`,
          name: { givenName: "User", familyName: String(i) },
          emails: [{ value: userName, primary: true }],
          active: true,
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 201) failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const listed = await fetch(`${platform.baseURL}/scim/v2/Users?count=1`, { headers: { authorization: `Bearer ${token}` } }).then(
    (r) => r.json() as Promise<{ totalResults: number }>,
  );
  console.log(`SCIM provisioning: ${USERS} users, ${CONCURRENCY} in flight`);
  console.log(`  time ${seconds.toFixed(1)} s, rate ${(USERS / seconds).toFixed(0)} users/s, refused ${failed}, listed ${listed.totalResults}`);
} finally {
  await platform.stop();
}
// The in-process platform leaves handles open after stop() (timers of its clients); a benchmark has nothing left to wait for.
process.exit(0);
