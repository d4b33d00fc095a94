/**
 * Account enumeration benchmark: for every route that takes an email or a username, how well ONE request
 * tells a known account from an unknown one, by its latency (and, separately, by its status). The last,
 * organization/remove-member by email, is sent by an organization's owner about registered users who are
 * not members and about unregistered addresses: both are refused MEMBER_NOT_FOUND. sign-in/email (banned
 * account) sends a wrong password for banned accounts and for unregistered addresses: a banned user is told
 * the ban only after the right password (docs/adr/0052-a-banned-user-is-told-after-the-proof.md).
 *
 *   tsx bench/enumeration.ts            (make bench-enumeration, npm run enumeration -w @auth-platform/bench)
 *
 * It starts the platform as production runs it (identity, session, notification, organization, sso, gateway: one process each,
 * fresh SQLite files, the development outbox, rate limiting off so every request reaches the handler),
 * creates BENCH_ENUM_USERS known accounts, then per route sends BENCH_ENUM_SAMPLES requests about known
 * accounts and as many about unknown ones, one at a time in a random interleaved order (so drift and
 * background work land on both alike), and reports the best single-threshold classification accuracy
 * (bench/separation.ts): 50% = indistinguishable; the target is at most 55% held out. Figures are printed,
 * never asserted.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { grpcTlsFromEnv } from "@auth-platform/runtime/grpc-transport";
import { call } from "@auth-platform/runtime/rpc";
import { eventually } from "../testing/eventually.js";
import { freePorts } from "../testing/ports.js";
import { killAllNow, startChild, stopAll } from "./processes.js";
import { bestThreshold, categoricalAccuracy, heldOutAccuracy, median } from "./separation.js";

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 2) throw new Error(`${name} must be an integer of at least 2 (got ${raw})`);
  return value;
};

const SAMPLES = num("BENCH_ENUM_SAMPLES", 200);
const USERS = num("BENCH_ENUM_USERS", 20);
/** BENCH_ENUM_ROUTES: a comma-separated list of route names to measure (default every route). */
const ONLY = (process.env.BENCH_ENUM_ROUTES ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
const WARMUP = 10;
const TARGET = 0.55;
const PASSWORD = "bench-password-0123";
const WRONG_PASSWORD = "wrong-password-0123";
const RUN_ID = randomBytes(3).toString("hex");

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Sample {
  ms: number;
  status: number;
}

interface Route {
  name: string;
  /** One request about a known account (i-th), or about an unknown one; `signedIn`: sent with the owner's session. */
  request: (known: boolean, i: number) => { path: string; body: unknown; signedIn?: boolean };
  /** Run once before the route is measured. */
  prepare?: (baseURL: string) => Promise<void>;
  note?: string;
}

let counter = 0;
const unknownEmail = () => `nobody-${RUN_ID}-${++counter}@example.com`;
const knownEmail = (i: number) => `known-${RUN_ID}-${i % USERS}@example.com`;
const knownUsername = (i: number) => `known_${RUN_ID}_${i % USERS}`;
/** Accounts that, like the unregistered addresses below, were asked a sign-in code. */
const codedEmail = (i: number) => `coded-${RUN_ID}-${i % USERS}@example.com`;
/** Unregistered addresses that were asked a sign-in code. */
const askedStranger = (i: number) => `stranger-${RUN_ID}-${i % USERS}@example.com`;
const bannedEmail = (i: number) => `banned-${RUN_ID}-${i % USERS}@example.com`;

const ROUTES: Route[] = [
  { name: "sign-in/email", request: (known, i) => ({ path: "/sign-in/email", body: { email: known ? knownEmail(i) : unknownEmail(), password: WRONG_PASSWORD } }) },
  {
    name: "sign-in/username",
    request: (known, i) => ({ path: "/sign-in/username", body: { username: known ? knownUsername(i) : `nobody_${RUN_ID}_${++counter}`, password: WRONG_PASSWORD } }),
  },
  {
    name: "sign-up/email",
    request: (known, i) => ({ path: "/sign-up/email", body: { name: "Probe", email: known ? knownEmail(i) : unknownEmail(), password: PASSWORD } }),
    note: "422 for a taken email, by design: enumerable by status",
  },
  { name: "forget-password", request: (known, i) => ({ path: "/forget-password", body: { email: known ? knownEmail(i) : unknownEmail(), redirectTo: "/reset" } }) },
  { name: "request-password-reset", request: (known, i) => ({ path: "/request-password-reset", body: { email: known ? knownEmail(i) : unknownEmail(), redirectTo: "/reset" } }) },
  // The known accounts are never verified: the case where a mail really goes out.
  {
    name: "send-verification-email",
    request: (known, i) => ({ path: "/send-verification-email", body: { email: known ? knownEmail(i) : unknownEmail(), callbackURL: "/verified" } }),
  },
  // Mail sign-in (docs/http-api/mail-sign-in.md): asking queues a request for every address alike.
  { name: "sign-in/magic-link", request: (known, i) => ({ path: "/sign-in/magic-link", body: { email: known ? knownEmail(i) : unknownEmail(), callbackURL: "/dashboard" } }) },
  ...(["sign-in", "email-verification", "forget-password"] as const).map((type) => ({
    name: `email-otp/send-verification-otp (${type})`,
    request: (known: boolean, i: number) => ({ path: "/email-otp/send-verification-otp", body: { email: known ? knownEmail(i) : unknownEmail(), type } }),
  })),
  { name: "email-otp/request-password-reset", request: (known, i) => ({ path: "/email-otp/request-password-reset", body: { email: known ? knownEmail(i) : unknownEmail() } }) },
  { name: "forget-password/email-otp", request: (known, i) => ({ path: "/forget-password/email-otp", body: { email: known ? knownEmail(i) : unknownEmail() } }) },
  // A wrong code after a code was asked for the address, a user's or not: a code is stored, and its tries
  // counted, for unknown addresses too (docs/adr/0062-mailed-codes-counted-for-every-address.md).
  {
    name: "sign-in/email-otp (wrong code)",
    prepare: async (baseURL) => {
      // Accounts of their own: the others have had their mails for the window (the per-recipient limit), and
      // the code mailed to each is how the bench knows the requests were processed.
      for (let i = 0; i < USERS; i++) {
        const res = await post(baseURL, "/sign-up/email", { name: "Coded", email: codedEmail(i), password: PASSWORD });
        if (res.status !== 200) throw new Error(`sign-up of coded account ${i}: HTTP ${res.status}`);
      }
      for (let i = 0; i < USERS; i++) {
        for (const email of [askedStranger(i), codedEmail(i)]) await post(baseURL, "/email-otp/send-verification-otp", { email, type: "sign-in" });
      }
      await untilMailed(baseURL, codedEmail(USERS - 1), "email-otp");
    },
    request: (known, i) => ({ path: "/sign-in/email-otp", body: { email: known ? codedEmail(i) : askedStranger(i), otp: "000000" } }),
  },
  // A banned account's wrong password answers as anyone's: only the right one is told the ban (403 BANNED_USER).
  {
    name: "sign-in/email (banned account)",
    request: (known, i) => ({ path: "/sign-in/email", body: { email: known ? bannedEmail(i) : unknownEmail(), password: WRONG_PASSWORD } }),
  },
  // Email-first sign-in routes by the address's domain, never by its account: example.com has no provider,
  // so a registered and an unregistered address get the same refusal.
  {
    name: "sign-in/sso (email)",
    request: (known, i) => ({ path: "/sign-in/sso", body: { email: known ? knownEmail(i) : unknownEmail(), callbackURL: "/dashboard" } }),
  },
  // The known accounts are registered but not members of the owner's organization: MEMBER_NOT_FOUND either way.
  {
    name: "organization/remove-member (email)",
    request: (known, i) => ({
      path: "/organization/remove-member",
      body: { memberIdOrEmail: known ? knownEmail(i) : unknownEmail(), organizationId: owner.organizationId },
      signedIn: true,
    }),
  },
];

/** The session cookie (and origin) of the organization owner that remove-member is sent as. */
const owner = { cookie: "", origin: "", organizationId: "" };

async function post(baseURL: string, path: string, body: unknown, signedIn = false): Promise<Sample> {
  const headers: Record<string, string> = { "content-type": "application/json", ...(signedIn ? { cookie: owner.cookie, origin: owner.origin } : {}) };
  const started = performance.now();
  const res = await fetch(baseURL + path, { method: "POST", headers, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

/**
 * Waits until the development outbox holds a mail of `template` to `to` (the mail request worker processes
 * requests in the order they were asked: every earlier one is done then).
 */
async function untilMailed(baseURL: string, to: string, template: string): Promise<void> {
  await eventually(async () => {
    const res = await fetch(`${baseURL}/dev/outbox?to=${encodeURIComponent(to)}`);
    const { messages } = (await res.json()) as { messages: Array<{ template: string }> };
    if (!messages.some((m) => m.template === template)) throw new Error(`no ${template} mail to ${to}`);
  }, 10_000);
}

/** known × n and unknown × n, shuffled (Fisher-Yates). */
function interleaved(n: number): boolean[] {
  const order = [...Array<boolean>(n).fill(true), ...Array<boolean>(n).fill(false)];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

async function measure(baseURL: string, route: Route): Promise<{ known: Sample[]; unknown: Sample[] }> {
  for (let i = 0; i < WARMUP; i++) {
    const request = route.request(i % 2 === 0, i);
    await post(baseURL, request.path, request.body, request.signedIn);
  }
  const known: Sample[] = [];
  const unknown: Sample[] = [];
  let i = 0;
  for (const isKnown of interleaved(SAMPLES)) {
    const request = route.request(isKnown, i++);
    (isKnown ? known : unknown).push(await post(baseURL, request.path, request.body, request.signedIn));
  }
  return { known, unknown };
}

async function startPlatform(): Promise<{ baseURL: string; dataDir: string; env: Record<string, string> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "auth-enumeration-"));
  const [identity, session, notification, organization, sso, gateway] = (await freePorts(6)) as [number, number, number, number, number, number];
  const inherited: Record<string, string> = {};
  const platformVar =
    /^(IDENTITY_|SESSION_|AUTH_|RATE_LIMIT_|REDIS_|SMTP_|GATEWAY_|NOTIFICATION_|OAUTH_|ORGANIZATION_|ADMIN_|SSO_|MAIL_FROM$|APP_NAME$|PORT$|LOG_LEVEL$|NODE_ENV$)/;
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !platformVar.test(key)) inherited[key] = value;
  const env: Record<string, string> = {
    ...inherited,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || "error",
    AUTH_SECRET: "bench-secret-0123456789-0123456789-abcde",
    AUTH_BASE_URL: `http://127.0.0.1:${gateway}/api/auth`,
    IDENTITY_PORT: String(identity),
    SESSION_PORT: String(session),
    NOTIFICATION_PORT: String(notification),
    ORGANIZATION_PORT: String(organization),
    SSO_PORT: String(sso),
    PORT: String(gateway),
    IDENTITY_SERVICE_URL: `127.0.0.1:${identity}`,
    SESSION_SERVICE_URL: `127.0.0.1:${session}`,
    NOTIFICATION_SERVICE_URL: `127.0.0.1:${notification}`,
    ORGANIZATION_SERVICE_URL: `127.0.0.1:${organization}`,
    SSO_SERVICE_URL: `127.0.0.1:${sso}`,
    IDENTITY_DATABASE_URL: `file:${join(dataDir, "identity.db")}`,
    SESSION_DATABASE_URL: `file:${join(dataDir, "session.db")}`,
    NOTIFICATION_DATABASE_URL: `file:${join(dataDir, "notification.db")}`,
    ORGANIZATION_DATABASE_URL: `file:${join(dataDir, "organization.db")}`,
    SSO_DATABASE_URL: `file:${join(dataDir, "sso.db")}`,
    // Every request must reach its handler: the sign-in limit would otherwise answer 429 after a few.
    RATE_LIMIT_ENABLED: "false",
    IDENTITY_MAGIC_LINK_ENABLED: "true",
    IDENTITY_EMAIL_OTP_ENABLED: "true",
  };
  await Promise.all([
    startChild("identity", "services/identity/src/main.ts", env, identity),
    startChild("session", "services/session/src/main.ts", env, session),
    startChild("notification", "services/notification/src/main.ts", env, notification),
  ]);
  await startChild("organization", "services/organization/src/main.ts", env, organization);
  await startChild("sso", "services/sso/src/main.ts", env, sso);
  await startChild("gateway", "gateway/src/main.ts", env, gateway);
  return { baseURL: `http://127.0.0.1:${gateway}/api/auth`, dataDir, env };
}

/** Signs up BENCH_ENUM_USERS accounts and bans them, as an admin would, over identity's gRPC API (plaintext here). */
async function signUpBannedAccounts(baseURL: string, env: Record<string, string>): Promise<void> {
  const users = createGrpcClient(AdminUserServiceClient, env.IDENTITY_SERVICE_URL!, { tls: grpcTlsFromEnv(env), serverName: "identity" });
  try {
    for (let i = 0; i < USERS; i++) {
      const res = await fetch(`${baseURL}/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Banned", email: bannedEmail(i), password: PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`sign-up of banned account ${i}: HTTP ${res.status}`);
      const { user } = (await res.json()) as { user: { id: string } };
      await call(users, users.banUser, { userId: user.id, reason: "bench", expiresInSeconds: "0" });
    }
    // The right password is told the ban: the accounts measured are banned indeed.
    const check = await post(baseURL, "/sign-in/email", { email: bannedEmail(0), password: PASSWORD });
    if (check.status !== 403) throw new Error(`a banned account's sign-in answered HTTP ${check.status}, not 403`);
  } finally {
    users.close();
  }
}

/** Signs up the owner that remove-member is sent as, with an organization of their own (its only member). */
async function signUpOrganizationOwner(baseURL: string): Promise<void> {
  owner.origin = new URL(baseURL).origin;
  const res = await fetch(`${baseURL}/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Owner", email: `owner-${RUN_ID}@example.com`, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-up of the organization owner: HTTP ${res.status}`);
  owner.cookie = res.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const created = await fetch(`${baseURL}/organization/create`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: owner.cookie, origin: owner.origin },
    body: JSON.stringify({ name: "Bench", slug: `bench-${RUN_ID}` }),
  });
  if (created.status !== 200) throw new Error(`organization/create: HTTP ${created.status} ${await created.text()}`);
  owner.organizationId = ((await created.json()) as { id: string }).id;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ms = (x: number) => x.toFixed(2);

async function main(): Promise<void> {
  const { baseURL, dataDir, env } = await startPlatform();
  try {
    log(`platform up; creating ${USERS} known accounts`);
    for (let i = 0; i < USERS; i++) {
      const res = await post(baseURL, "/sign-up/email", { name: "Known", email: knownEmail(i), username: knownUsername(i), password: PASSWORD });
      if (res.status !== 200) throw new Error(`sign-up of known account ${i}: HTTP ${res.status}`);
    }
    await signUpBannedAccounts(baseURL, env);
    await signUpOrganizationOwner(baseURL);
    const lines = [
      "| route | median known ms | median unknown ms | status known / unknown | by status | by latency, in-sample | by latency, held out | target <= 55% |",
      "|---|---|---|---|---|---|---|---|",
    ];
    const notes: string[] = [];
    for (const route of ROUTES.filter((r) => !ONLY.length || ONLY.includes(r.name))) {
      await route.prepare?.(baseURL);
      log(`measuring ${route.name}: ${SAMPLES} known + ${SAMPLES} unknown`);
      const { known, unknown } = await measure(baseURL, route);
      const statuses = (samples: Sample[]) => [...new Set(samples.map((s) => s.status))].sort().join(",");
      const byStatus = categoricalAccuracy(
        known.map((s) => s.status),
        unknown.map((s) => s.status),
      );
      const inSample = bestThreshold(
        known.map((s) => s.ms),
        unknown.map((s) => s.ms),
      ).accuracy;
      const heldOut = heldOutAccuracy(
        known.map((s) => s.ms),
        unknown.map((s) => s.ms),
      );
      const verdict = byStatus > 0.5 ? "n/a (status)" : heldOut <= TARGET ? "yes" : "NO";
      lines.push(
        `| ${route.name} | ${ms(median(known.map((s) => s.ms)))} | ${ms(median(unknown.map((s) => s.ms)))} | ${statuses(known)} / ${statuses(unknown)} | ${pct(byStatus)} | ${pct(inSample)} | ${pct(heldOut)} | ${verdict} |`,
      );
      if (route.note) notes.push(`${route.name}: ${route.note}.`);
    }
    const expectedNoise = 0.5 + 0.43 / Math.sqrt(SAMPLES);
    process.stdout.write(
      `\nAccount enumeration: ${SAMPLES} requests per class and route, one at a time, ${USERS} known accounts\n\n${lines.join("\n")}\n\n` +
        `Accuracy is balanced: 50% = one request tells nothing. "in-sample" fits the threshold on the scored samples ` +
        `(about ${pct(expectedNoise)} expected from noise alone at this sample size); "held out" fits on half and scores the other half.\n` +
        notes.map((n) => `${n}\n`).join(""),
    );
  } finally {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.on("SIGINT", () => {
  killAllNow();
  process.exit(130);
});
process.on("exit", killAllNow);

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
