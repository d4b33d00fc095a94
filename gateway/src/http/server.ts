/**
 * The gateway's HTTP server, shared by main.ts and the test platform: a request must arrive whole (headers
 * and body) within GATEWAY_REQUEST_TIMEOUT_MS and its headers within GATEWAY_HEADERS_TIMEOUT_MS, else Node
 * answers 408 and closes the connection, so a client that declares a body and never sends it cannot hold a
 * connection (and a body parser) for minutes.
 */
import { createServer, type RequestListener, type Server } from "node:http";

export interface ServerTimeouts {
  requestMs: number;
  headersMs: number;
}

export function gatewayServer(app: RequestListener, timeouts: ServerTimeouts): Server {
  const server = createServer(
    {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      // Node checks the bounds on this interval (default 30 s): check often enough to keep them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
    app,
  );
  // Longer than a load balancer's idle timeout (60 s on most), so the balancer closes idle connections first.
  server.keepAliveTimeout = 65_000;
  return server;
}
