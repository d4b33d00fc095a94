/**
 * Closes an HTTP server at shutdown: it stops accepting connections, idle keep-alive connections close at
 * once and the others as soon as their answer is sent, and requests in flight get `graceMs` to finish before
 * their connections are closed (a slow upload must not hold the process's close; the gateway's request
 * timeout is 30 s).
 */
import type { Server } from "node:http";
import type { Logger } from "./log.js";

const IDLE_SWEEP_MS = 50;

export async function closeHttpServer(server: Server, graceMs: number, log: Pick<Logger, "warn">): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // A keep-alive connection whose request was in flight stays open after its answer; close it as soon as it
  // is idle, not when its keep-alive timeout (65 s) or the grace ends.
  const idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  const force = setTimeout(() => {
    log.warn("in-flight requests did not finish in time; closing their connections", { graceMs });
    server.closeAllConnections();
  }, graceMs);
  await stopped;
  clearInterval(idleSweep);
  clearTimeout(force);
}
