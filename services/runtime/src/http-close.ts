/**
 * Closes an HTTP server at shutdown without failing a request a client already sent: it stops accepting
 * connections; every answer from then on (and those in flight, when the server was passed to
 * trackResponses) says `Connection: close`, so a keep-alive client opens its next request elsewhere
 * instead of sending it down a connection being closed; connections still idle after IDLE_LINGER_MS close
 * then, the others once their answer is sent; requests in flight get `graceMs` to finish before their
 * connections are closed (a slow upload must not hold the process's close; the gateway's request timeout
 * is 30 s).
 */
import type { Server, ServerResponse } from "node:http";
import { Server as NetServer } from "node:net";
import type { Logger } from "./log.js";

const IDLE_SWEEP_MS = 50;

/**
 * How long a connection idle when the drain starts may still bring a request. Closing it at once loses a
 * request the client sent meanwhile ("other side closed": measured in gateway/test/drain-under-load); a
 * client that sends nothing for this long has gone elsewhere or will reconnect.
 */
export const IDLE_LINGER_MS = 1_000;

const openResponses = new WeakMap<Server, Set<ServerResponse>>();

/** Keeps a server's unanswered responses, so that closeHttpServer can have them close their connections. */
export function trackResponses(server: Server): void {
  const open = new Set<ServerResponse>();
  openResponses.set(server, open);
  server.prependListener("request", (_request, response) => {
    open.add(response);
    response.once("close", () => open.delete(response));
  });
}

export async function closeHttpServer(server: Server, graceMs: number, log: Pick<Logger, "warn">, idleLingerMs = IDLE_LINGER_MS): Promise<void> {
  const closeAfterAnswer = (response: ServerResponse) => {
    if (!response.headersSent) response.shouldKeepAlive = false;
  };
  server.prependListener("request", (_request, response) => closeAfterAnswer(response));
  for (const response of openResponses.get(server) ?? []) closeAfterAnswer(response);
  // net.Server's close, not http.Server's: the latter also closes idle connections at once (Node 19+).
  const stopped = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  let idleSweep: NodeJS.Timeout | undefined;
  const linger = setTimeout(() => {
    server.closeIdleConnections();
    // A keep-alive connection whose answer was under way stays open after it; close it as soon as it is
    // idle, not when its keep-alive timeout (65 s) or the grace ends.
    idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  }, idleLingerMs);
  const force = setTimeout(() => {
    log.warn("in-flight requests did not finish in time; closing their connections", { graceMs });
    server.closeAllConnections();
  }, graceMs);
  await stopped;
  clearTimeout(linger);
  clearInterval(idleSweep);
  clearTimeout(force);
}
