/**
 * The `web` process of `npm start` and the chart (compiled to dist/web.js): serves dist/web/ and proxies
 * /api/auth to the gateway. Environment: WEB_PORT (default 5173), WEB_HOST (default 0.0.0.0),
 * AUTH_GATEWAY_URL (default http://127.0.0.1:3000), WEB_ROOT (default web/ beside this file), METRICS_PORT
 * (Prometheus /metrics on its own port, bound on WEB_HOST; unset: none), and the app's run-time settings
 * AUTH_BASE_PATH (default /api/auth) and WEB_ANALYTICS_PATH (unset: no analytics script; runtime-config.ts).
 * AUTH_APP_URL (else AUTH_BASE_URL, the API on the app's host), the ConfigMap's public URLs: https turns HSTS on.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeSteps } from "@auth-platform/runtime/close-steps";
import { closeHttpServer, trackResponses } from "@auth-platform/runtime/http-close";
import { createLogger } from "@auth-platform/runtime/log";
import { closeOnSignals } from "@auth-platform/runtime/main";
import { startMetricsServer } from "@auth-platform/runtime/metrics";
import { runtimeConfigFromEnv } from "./runtime-config.js";
import { createWebServer } from "./web-server.js";

const port = Number(process.env.WEB_PORT ?? 5173);
const host = process.env.WEB_HOST ?? "0.0.0.0";
const gatewayUrl = process.env.AUTH_GATEWAY_URL ?? "http://127.0.0.1:3000";
const root = process.env.WEB_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), "web");
const metricsPort = portOrUnset("METRICS_PORT", process.env.METRICS_PORT);
const config = runtimeConfigFromEnv(process.env);
const https = (process.env.AUTH_APP_URL || process.env.AUTH_BASE_URL || "").startsWith("https:");

/** A port from the environment: unset or empty is undefined; anything but 0..65535 stops the process. */
function portOrUnset(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new Error(`${name} must be a port number (0-65535), got "${value}"`);
  return port;
}

const log = createLogger("web");

const server = createWebServer({ root, gatewayUrl, config, https });
trackResponses(server);
server.listen(port, host, () => log.info("listening", { port, host, root, gateway: gatewayUrl, basePath: config.basePath, analyticsPath: config.analyticsPath ?? null }));
const metrics = metricsPort === undefined ? undefined : await startMetricsServer(metricsPort, host);
if (metrics) log.info("metrics listening", { port: metrics.port, host, path: "/metrics" });
/** Requests still in flight this long after SIGTERM have their connections closed; the whole close ends within CLOSE_LIMIT_MS. */
const REQUESTS_GRACE_MS = 5_000;
const CLOSE_LIMIT_MS = 10_000;
const shutdown = closeSteps(
  [
    { name: "in-flight requests", close: () => closeHttpServer(server, REQUESTS_GRACE_MS, log) },
    { name: "metrics server", close: () => metrics?.close() },
  ],
  log,
);
closeOnSignals({ log, close: shutdown.run, closing: shutdown.current }, CLOSE_LIMIT_MS);
