/**
 * Single sign-on latency beside password sign-in, on the whole platform (bench/whole-platform.ts: every
 * server process, mutual TLS, rate limiting off; fresh SQLite files, or with --postgres a fresh database
 * per service on BENCH_DATABASE_URL, else TEST_DATABASE_URL, else the local server):
 *
 *   npx tsx bench/sso-sign-in.ts [--postgres]
 *
 * An owner registers an OpenID Connect provider (a real one on loopback: testing/openid-provider.ts) and a
 * SAML 2.0 provider (testing/saml-idp.ts, signing real assertions) for the organization. Then, one at a
 * time and BENCH_SSO_CONCURRENCY (8) at once, BENCH_SSO_SIGN_INS (200) sign-ins of each kind: password
 * (POST /sign-in/email, existing users), OIDC and SAML for new users (the user and the membership created)
 * and again for the same users (returning). Each is timed from POST /sign-in/sso to the answer that sets
 * the session cookie, split into the platform's requests ("ours") and the browser's requests to the IdP.
 * The platform's own calls to the OpenID provider (discovery, token) pass through a relay here that adds up
 * their time: that column says how much of "ours" was spent waiting on the IdP. Figures, not a test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { BrowserFlow } from "../testing/browser-flow.js";
import { TestClient } from "../testing/http.js";
import { startOpenIdProvider } from "../testing/openid-provider.js";
import { createSamlIdp, type SamlUser } from "../testing/saml-idp.js";
import { envNumber } from "./env.js";
import { eachLimited, signUp } from "./http.js";
import { freshDatabases } from "./postgres.js";
import { killAllNow, stopAll } from "./processes.js";
import { startWholePlatform } from "./whole-platform.js";

const SIGN_INS = envNumber("BENCH_SSO_SIGN_INS", 200);
const CONCURRENCY = envNumber("BENCH_SSO_CONCURRENCY", 8);
const WARMUP = envNumber("BENCH_SSO_WARMUP", 10);
const PASSWORD_USERS = 16;
const PASSWORD = "bench-password-0123";
const OIDC = { providerId: "bench-oidc", domain: "oidc-bench.example" };
const SAML = { providerId: "bench-saml", domain: "saml-bench.example" };
const IDP_ORIGIN = "https://idp.example.test";
const POSTGRES = process.argv.includes("--postgres");
const FROM = process.env.BENCH_BUILD === "1" ? "build" : "source";
const RUN = Date.now().toString(36);

interface Timing {
  /** From the first request to the answer that set the session cookie. */
  total: number;
  /** The platform's requests (the gateway's answers, with the platform's own calls to the IdP inside). */
  ours: number;
  /** The browser's requests to the IdP. */
  idp: number;
}

type SignIn = (index: number) => Promise<Timing>;

/**
 * The platform's calls to the OpenID provider (discovery, token) go through this pass-through, which adds up
 * the time the provider took to answer them.
 */
async function startBackChannelRelay(upstream: string) {
  const relay = { url: "", spentMs: 0, calls: 0, stop: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const name of ["content-type", "authorization", "accept"]) if (req.headers[name]) headers[name] = String(req.headers[name]);
      const started = performance.now();
      void fetch(`${upstream}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
        .then(async (answer) => {
          const body = Buffer.from(await answer.arrayBuffer());
          relay.spentMs += performance.now() - started;
          relay.calls += 1;
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
          res.end(body);
        })
        .catch((error: unknown) => {
          res.writeHead(502);
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.stop = () => new Promise((resolve) => server.close(() => resolve()));
  return relay;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const hasSession = (flow: BrowserFlow) => [...flow.jar.cookies.keys()].some((name) => name.endsWith("session_token"));
const load1 = () => loadavg()[0]!.toFixed(1);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "auth-sso-bench-"));
  const server = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databases = POSTGRES ? await freshDatabases(server, "sso_bench", ["identity", "session", "notification", "oauth", "organization", "admin", "sso"]) : undefined;
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const platform = await startWholePlatform({
      from: FROM,
      dataDir,
      startTimeoutMs: 180_000,
      env: {
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
        AUTH_SECRET: "bench-secret-0123456789-0123456789-0123456789",
        SSO_TRUSTED_DOMAINS: `${OIDC.domain},${SAML.domain}`,
        // The test IdPs listen on loopback.
        SSO_ALLOW_PRIVATE_ADDRESSES: "true",
        ...databases?.env,
      },
    });
    stops.push(stopAll);
    const base = platform.baseURL;
    const oidcIdp = await startOpenIdProvider({ redirectUris: [`${base}/sso/callback/${OIDC.providerId}`] });
    stops.push(() => oidcIdp.stop());
    const relay = await startBackChannelRelay(oidcIdp.issuer);
    stops.push(relay.stop);
    const samlIdp = await createSamlIdp();
    const samlUsers = new Map<string, SamlUser>();
    await samlIdp.listen((request) => {
      const user = request.relayState === null ? undefined : samlUsers.get(request.relayState);
      if (!user) throw new Error("an AuthnRequest for no sign-in of this run");
      return user;
    });
    stops.push(() => samlIdp.stop());

    // The owner, the organization, its two providers; the password users.
    const owner = new TestClient(base);
    const ownerEmail = `owner-${RUN}@owner.example`;
    const ownerUp = await owner.post("/sign-up/email", { name: "Owner", email: ownerEmail, password: PASSWORD });
    if (ownerUp.status !== 200) throw new Error(`owner sign-up: ${ownerUp.status} ${JSON.stringify(ownerUp.body)}`);
    const org = await owner.post("/organization/create", { name: "SSO bench", slug: `sso-bench-${RUN}` });
    if (org.status !== 200) throw new Error(`organization: ${org.status} ${JSON.stringify(org.body)}`);
    const organizationId = org.body.id as string;
    const registered = [
      await owner.post("/sso/register", {
        providerId: OIDC.providerId,
        issuer: oidcIdp.issuer,
        domain: OIDC.domain,
        organizationId,
        oidcConfig: {
          clientId: oidcIdp.clientId,
          clientSecret: oidcIdp.clientSecret,
          discoveryEndpoint: `${relay.url}/.well-known/openid-configuration`,
          tokenEndpoint: `${relay.url}/token`,
          pkce: true,
        },
      }),
      await owner.post("/sso/register", {
        providerId: SAML.providerId,
        issuer: samlIdp.entityId,
        domain: SAML.domain,
        organizationId,
        samlConfig: { idpMetadata: { metadata: samlIdp.metadataXml() } },
      }),
    ];
    for (const res of registered) if (res.status !== 200) throw new Error(`sso/register: ${res.status} ${JSON.stringify(res.body)}`);
    const passwordUsers = Array.from({ length: PASSWORD_USERS }, (_, i) => `password-${RUN}-${i}@bench.example`);
    await eachLimited(passwordUsers, 4, async (email) => void (await signUp(base, email, PASSWORD)));

    const password: SignIn = async (index) => {
      const started = performance.now();
      const res = await fetch(`${base}/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: passwordUsers[index % PASSWORD_USERS], password: PASSWORD }),
      });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 200 || !res.headers.getSetCookie().some((line) => /session_token=[^;]/.test(line))) throw new Error(`sign-in/email: ${res.status} ${body.slice(0, 300)}`);
      return { total: ms, ours: ms, idp: 0 };
    };

    type Timed = (url: string, init?: RequestInit) => Promise<{ res: Response; body: string }>;
    /**
     * One sign-in in a fresh browser, each request timed as the platform's or the IdP's (by its address):
     * POST /sign-in/sso, `viaIdp` (the browser at the IdP, up to the request it sends us), then our redirects
     * until the answer that sets the session cookie, which must lead to `landing`.
     */
    async function ssoSignIn(
      email: string,
      landing: "/welcome" | "/dashboard",
      viaIdp: (timed: Timed, idpUrl: URL) => Promise<{ url: string; init?: RequestInit }>,
    ): Promise<Timing> {
      const flow = new BrowserFlow(() => true);
      const timing: Timing = { total: 0, ours: 0, idp: 0 };
      const timed: Timed = async (url, init) => {
        const at = performance.now();
        const res = await flow.request(url, init);
        const body = await res.text();
        timing[url.startsWith(base) ? "ours" : "idp"] += performance.now() - at;
        return { res, body };
      };
      const started = performance.now();
      const start = await timed(`${base}/sign-in/sso`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, callbackURL: "/dashboard", newUserCallbackURL: "/welcome", errorCallbackURL: "/oops" }),
      });
      if (start.res.status !== 200) throw new Error(`sign-in/sso: ${start.res.status} ${start.body.slice(0, 300)}`);
      let { url, init } = await viaIdp(timed, new URL((JSON.parse(start.body) as { url: string }).url));
      let last = "";
      for (let hops = 0; !hasSession(flow); hops++) {
        if (hops === 5) throw new Error(`no session cookie after ${url}`);
        const { res, body } = await timed(url, init);
        const location = res.headers.get("location");
        if (!location) throw new Error(`${url} answered ${res.status} without a redirect: ${body.slice(0, 300)}`);
        last = location;
        url = new URL(location, url).href;
        init = undefined;
      }
      timing.total = performance.now() - started;
      const landed = new URL(last, base);
      if (landed.pathname !== landing || landed.searchParams.has("error")) throw new Error(`${email} landed on ${last}, not ${landing}`);
      return timing;
    }

    /** The OpenID provider: its authorization endpoint, its login interaction, then the redirect to our callback. */
    const atOpenIdProvider = async (timed: Timed, idpUrl: URL) => {
      let url = idpUrl.href;
      for (let hops = 0; !url.startsWith(base); hops++) {
        if (hops === 6) throw new Error(`the OpenID provider never sent the browser back (${url})`);
        const { res, body } = await timed(url);
        const location = res.headers.get("location");
        if (!location) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 300)}`);
        url = new URL(location, url).href;
      }
      return { url };
    };

    /** The SAML IdP answers the AuthnRequest with its auto-posting form for `user`; the browser posts it to our ACS. */
    const atSamlIdp = (user: SamlUser) => async (timed: Timed, idpUrl: URL) => {
      const relayState = idpUrl.searchParams.get("RelayState") ?? "";
      samlUsers.set(relayState, user);
      const { res, body } = await timed(idpUrl.href);
      samlUsers.delete(relayState);
      const samlResponse = /name="SAMLResponse" value="([^"]+)"/.exec(body)?.[1];
      const action = /action="([^"]+)"/.exec(body)?.[1];
      if (res.status !== 200 || !samlResponse || !action) throw new Error(`the SAML IdP answered ${res.status}: ${body.slice(0, 300)}`);
      const form = new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState });
      return {
        url: action.replace(/&amp;/g, "&"),
        init: { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: IDP_ORIGIN }, body: form.toString() },
      };
    };

    /** SSO sign-ins of the users numbered from `from`: new ones (created at the IdP here), or the same again. */
    const sso = (kind: "oidc" | "saml", firstTime: boolean, from: number): SignIn => {
      const landing = firstTime ? "/welcome" : "/dashboard";
      return async (index) => {
        const i = from + index;
        if (kind === "oidc") {
          const email = `oidc-${RUN}-${i}@${OIDC.domain}`;
          if (firstTime) oidcIdp.addAccount({ sub: `sub-${RUN}-${i}`, email, email_verified: true, name: `OIDC ${i}` });
          return ssoSignIn(email, landing, atOpenIdProvider);
        }
        const email = `saml-${RUN}-${i}@${SAML.domain}`;
        return ssoSignIn(email, landing, atSamlIdp({ nameId: email, email, name: `SAML ${i}` }));
      };
    };

    interface Row {
      name: string;
      inFlight: number;
      seconds: number;
      timings: Timing[];
      failures: number;
      backChannelMs: number;
      load: [string, string];
    }
    const rows: Row[] = [];
    let accountsUsed = 0;
    const measure = async (name: string, inFlight: number, signIn: SignIn, count: number, record = true) => {
      const load = load1();
      const spentBefore = relay.spentMs;
      const timings: Timing[] = [];
      let failures = 0;
      const started = performance.now();
      await eachLimited(
        Array.from({ length: count }, (_, i) => i),
        inFlight,
        async (i) => {
          try {
            timings.push(await signIn(i));
          } catch (error) {
            // Reported, not fatal: a call beyond its deadline on a loaded machine (503), or a first request while
            // a process loads what it needs. A failed first-time sign-in fails the same user's returning one.
            failures += 1;
            if (failures <= 3) console.log(`  ${record ? "" : "warm-up "}${name} #${i} failed: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
          }
        },
      );
      const seconds = (performance.now() - started) / 1000;
      if (!record) return;
      rows.push({ name, inFlight, seconds, timings, failures, backChannelMs: (relay.spentMs - spentBefore) / count, load: [load, load1()] });
      console.log(`  ${name}, ${inFlight} in flight: ${seconds.toFixed(1)} s${failures ? `, ${failures} failed` : ""}`);
    };
    /** First-time sign-ins for `count` new users of `kind`, then the same users again. */
    const ssoPair = async (kind: "oidc" | "saml", inFlight: number, count: number, record = true) => {
      const from = accountsUsed;
      accountsUsed += count;
      const label = kind === "oidc" ? "OIDC SSO" : "SAML SSO";
      await measure(`${label}, first time`, inFlight, sso(kind, true, from), count, record);
      await measure(`${label}, returning`, inFlight, sso(kind, false, from), count, record);
    };

    console.log(
      `SSO sign-in beside password sign-in: ${SIGN_INS} of each, 1 and ${CONCURRENCY} in flight; whole platform from ${FROM}, ${POSTGRES ? "PostgreSQL" : "SQLite"}, memory cache; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    // Warm-up, unmeasured: the first requests of each path compile and open connections.
    await measure("warm-up", 1, password, WARMUP, false);
    await ssoPair("oidc", 1, WARMUP, false);
    await ssoPair("saml", 1, WARMUP, false);
    const mib = (bytes: number | undefined) => (bytes === undefined ? "?" : (bytes / 2 ** 20).toFixed(0));
    const rssAfterWarmUp = new Map(platform.children.map((child) => [child.name, child.memory()?.current]));
    for (const inFlight of [1, CONCURRENCY]) {
      await measure("password", inFlight, password, SIGN_INS);
      await ssoPair("oidc", inFlight, SIGN_INS);
      await ssoPair("saml", inFlight, SIGN_INS);
    }

    const members = await owner.get(`/organization/list-members?organizationId=${organizationId}&limit=1`);
    const ms = (values: number[]) => [50, 95, 99].map((p) => percentile(values, p).toFixed(1)).join(" / ");
    console.log(
      "\n| sign-in | in flight | sign-ins/s | end to end p50 / p95 / p99 ms | ours p50 / p95 / p99 ms | IdP (browser) p50 ms | ours waiting on the IdP, mean ms | failed | load average |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of rows) {
      const idp =
        row.name === "password"
          ? ""
          : percentile(
              row.timings.map((t) => t.idp),
              50,
            ).toFixed(1);
      const backChannel = row.name.startsWith("OIDC") ? row.backChannelMs.toFixed(1) : "";
      console.log(
        `| ${row.name} | ${row.inFlight} | ${(row.timings.length / row.seconds).toFixed(1)} | ${ms(row.timings.map((t) => t.total))} | ${ms(row.timings.map((t) => t.ours))} | ${idp} | ${backChannel} | ${row.failures} | ${row.load[0]} to ${row.load[1]} |`,
      );
    }
    console.log(
      `\nours: the platform's requests only (POST /sign-in/sso, the callback; for SAML the ACS post and the handoff GET); the browser's time at the IdP is apart.` +
        `\nFor OIDC, "ours" includes the platform's own calls to the provider (discovery at the start and the callback, the token exchange): their mean is the "waiting on the IdP" column.` +
        `\nThe IdPs and the clients share this process (and the 2 cores) with nothing else, so with ${CONCURRENCY} in flight the IdP's signing also delays when our answers are read.` +
        `\nRSS after the warm-up -> at the end, MiB: ${platform.children.map((child) => `${child.name} ${mib(rssAfterWarmUp.get(child.name))} -> ${mib(child.memory()?.current)}`).join(", ")}` +
        `\norganization members at the end: ${members.body?.total} (1 owner + ${accountsUsed} first-time SSO users: one the gateway gave up on at its deadline may still have completed)`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop();
    await databases?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.on("exit", killAllNow);
main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
