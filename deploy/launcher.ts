/**
 * The whole platform on one machine, one process per service: from source for `make dev` (deploy/dev.ts),
 * from the build for `npm start` (deploy/start.ts). Unless the environment says otherwise it runs on the
 * embedded defaults: SQLite files under data/, memory for the cache and counters, the development mail
 * outbox. Ctrl-C stops everything.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureDevCertificates } from "./dev-certs.js";
import { BUILT_ENTRY, ENTRY_POINTS, ROOT, type ProcessName, type StartedProcess, startProcess } from "./processes.js";

const COLORS: Record<string, string> = { identity: "35", session: "36", notification: "33", oauth: "95", organization: "34", admin: "91", sso: "93", gateway: "32", web: "94" };
const data = join(ROOT, "data");

/**
 * The environment every process gets: `source`'s settings (the caller's environment) over the embedded
 * defaults, with the SQLite files under `dataDir`. The benchmarks start the built processes with it too.
 */
export function launcherEnv(dataDir: string, source: Record<string, string | undefined> = process.env): Record<string, string | undefined> {
  return {
    NODE_ENV: source.NODE_ENV ?? "development",
    IDENTITY_DATABASE_URL: source.IDENTITY_DATABASE_URL ?? `file:${join(dataDir, "identity.db")}`,
    SESSION_DATABASE_URL: source.SESSION_DATABASE_URL ?? `file:${join(dataDir, "session.db")}`,
    NOTIFICATION_DATABASE_URL: source.NOTIFICATION_DATABASE_URL ?? `file:${join(dataDir, "notification.db")}`,
    ORGANIZATION_DATABASE_URL: source.ORGANIZATION_DATABASE_URL ?? `file:${join(dataDir, "organization.db")}`,
    ADMIN_DATABASE_URL: source.ADMIN_DATABASE_URL ?? `file:${join(dataDir, "admin.db")}`,
    OAUTH_DATABASE_URL: source.OAUTH_DATABASE_URL ?? `file:${join(dataDir, "oauth.db")}`,
    SSO_DATABASE_URL: source.SSO_DATABASE_URL ?? `file:${join(dataDir, "sso.db")}`,
    AUTH_APP_URL: source.AUTH_APP_URL ?? "http://localhost:5173",
    AUTH_TRUSTED_ORIGINS: source.AUTH_TRUSTED_ORIGINS ?? "http://localhost:5173",
    AUTH_BASE_URL: source.AUTH_BASE_URL ?? `http://localhost:${source.PORT ?? 3000}/api/auth`,
    // Nothing of the platform listens beyond this machine unless told to: the dev outbox holds live links.
    HOST: source.HOST ?? "127.0.0.1",
    GRPC_HOST: source.GRPC_HOST ?? "127.0.0.1",
    // The web app (Vite's dev server, or the built app's server) and the gateway it proxies /api/auth to.
    WEB_PORT: source.WEB_PORT ?? "5173",
    WEB_HOST: source.WEB_HOST ?? source.HOST ?? "127.0.0.1",
    AUTH_GATEWAY_URL: source.AUTH_GATEWAY_URL ?? `http://127.0.0.1:${source.PORT ?? 3000}`,
    // Every sign-in method on offer out of the box (passkeys need nothing): the mails land in the dev outbox.
    IDENTITY_MAGIC_LINK_ENABLED: source.IDENTITY_MAGIC_LINK_ENABLED ?? "true",
    IDENTITY_EMAIL_OTP_ENABLED: source.IDENTITY_EMAIL_OTP_ENABLED ?? "true",
  };
}

const env = launcherEnv(data);

// Mutual TLS between the processes, as in production: a development CA and one certificate per workload
// under data/tls/ (made on first run, reused after; internal-client's is for your own services).
const insecure = process.env.GRPC_INSECURE === "true";
const tlsRoot = join(data, "tls");
let tlsDirs: Record<string, string> = {};

/** One readable line from a JSON log line: time, level, message, then the other fields. */
function pretty(label: string, line: string): string {
  let text = line;
  try {
    const { time, level, service: _service, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    text = `${String(time).slice(11, 19)} ${String(level).padEnd(5)} ${msg} ${fields.join(" ")}`;
  } catch {
    // Not JSON (a crash trace): print as is.
  }
  return `\x1b[${COLORS[label] ?? "37"}m${label.padEnd(12)}\x1b[0m ${text}`;
}

const order: ProcessName[] = ["identity", "session", "notification", "oauth", "organization", "admin", "sso", "gateway", "web"];
const running: StartedProcess[] = [];
let stopping = false;
let entries: Record<ProcessName, string> = ENTRY_POINTS;

async function stopAll(code: number): Promise<never> {
  stopping = true;
  await Promise.all(running.map((p) => p.stop("SIGTERM")));
  process.exit(code);
}

async function start(name: ProcessName): Promise<void> {
  const tls = tlsDirs[name] ? { GRPC_TLS_DIR: tlsDirs[name] } : {};
  const started = await startProcess(name, { env: { ...env, ...tls }, entry: entries[name], onLine: (line) => console.log(pretty(name, line)) });
  running.push(started);
  void started.exited.then((exitCode) => {
    if (stopping) return;
    console.error(`\n${name} stopped unexpectedly (${exitCode}); stopping the platform.`);
    void stopAll(1);
  });
}

/** Starts every process from its sources (`source`) or from dist/ (`build`), and stops them all on Ctrl-C. */
export async function launchPlatform(from: "source" | "build"): Promise<void> {
  entries = from === "source" ? ENTRY_POINTS : BUILT_ENTRY;
  const missing = order.filter((name) => !existsSync(join(ROOT, entries[name])));
  if (from === "build" && missing.length) {
    console.error(`No build for ${missing.join(", ")}: run \`npm run build\` first.`);
    process.exit(1);
  }
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  if (!insecure) {
    tlsDirs = await ensureDevCertificates(tlsRoot, ["gateway", "identity", "session", "notification", "oauth", "organization", "admin", "sso", "internal-client"]);
  }

  // The services need each other only when called (gRPC clients connect lazily), so they start at once, but
  // after session: identity pushes its user copies to session at start. The gateway starts after them, so
  // that it never takes a request before the services listen; the web app last: it proxies to the gateway.
  const services = order.filter((name) => !["session", "gateway", "web"].includes(name) && existsSync(join(ROOT, entries[name])));
  for (const group of [["session" as const], services, ["gateway" as const], ["web" as const]]) {
    for (const result of await Promise.allSettled(group.map(start))) {
      if (result.status === "rejected") {
        console.error(String(result.reason));
        await stopAll(1);
      }
    }
  }

  const gatewayUrl = env.AUTH_BASE_URL!;
  console.log(`
  Auth platform is running (${from === "source" ? "from source" : "from the build in dist/"}).
  Web app:  http://localhost:${env.WEB_PORT}   (sign up, sign in, your account; mail at /dev/mailbox)
  Gateway:  ${gatewayUrl}   (try: curl ${gatewayUrl}/ok)
  Data:     ${env.IDENTITY_DATABASE_URL?.startsWith("file:") ? dirname(env.IDENTITY_DATABASE_URL.slice(5)) : "as configured"}
  Mail:     development outbox (links are printed above; GET ${gatewayUrl}/dev/outbox)
  gRPC:     ${insecure ? "plaintext (GRPC_INSECURE=true)" : `mutual TLS; certificates in ${tlsRoot} (internal-client/ is for your own services)`}
  Ctrl-C stops everything.
`);
}
