/**
 * The one service bootstrap: a grpc-js server with the standard grpc.health.v1 protocol, bound to a port
 * (0 picks a free one), and a graceful shutdown (main.ts runs it on SIGTERM/SIGINT): report NOT_SERVING, stop accepting, let
 * in-flight calls finish (bounded), then close the stores.
 *
 * Under mutual TLS every RPC of a service passes its access table first (grpc-access.ts): the caller's
 * certificate names a workload, and the workload must be in the RPC's row. The health service answers any
 * peer that completed the handshake, and, if a health port is given, also plaintext on that port alone.
 */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "./grpc-health.js";
import { type Closer, closeSteps } from "./close-steps.js";
import { catalogueStatus } from "@auth-platform/proto/rpc-server";
import { type AccessTable, callerOf, checkAccess, checkTableCovers, logRefusal, rpcNames } from "./grpc-access.js";
import { certificatesReady, type GrpcTls, insecureWarning, serverCredentials } from "./grpc-transport.js";
import type { Logger } from "./log.js";
import { recordRpcServed } from "./metrics.js";
import { releaseClosedHttp2Streams } from "./http2-streams.js";

export interface ServiceBinding {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** Fully qualified name reported by the health service, e.g. auth.session.v1.SessionService. */
  name: string;
  /** Who may call each RPC (one row per RPC, checked at start); enforced under mutual TLS. */
  access: AccessTable;
}

/**
 * The health status name the chart's readiness probe checks: SERVING while the service's required
 * dependencies answer (dependencies.ts), while "" (the liveness probe's) stays SERVING until shutdown.
 */
export const READINESS_SERVICE = "readiness";

export interface RunningServer {
  port: number;
  /** Reports the service ready (or not) to the readiness probe and to clients checking its services. */
  setReady(ready: boolean): void;
  /** The health-only plaintext port, when one was asked for. */
  healthPort?: number;
  /** Stops the server, then runs the close hooks. Safe to call twice. */
  shutdown(): Promise<void>;
  /** What a shutdown under way is waiting for ("in-flight calls", or a closer's name); undefined otherwise. */
  closing(): string | undefined;
}

export interface StartOptions {
  services: ServiceBinding[];
  port: number;
  host?: string;
  /** Mutual TLS (with per-RPC access checks) or plaintext. */
  tls: GrpcTls;
  /** A plaintext port that serves grpc.health.v1 only (kubelet probes cannot present a certificate). */
  healthPort?: number;
  log: Logger;
  /** Closed after the server stops, in order (stores, caches, clients). */
  closers?: Closer[];
  graceMs?: number;
}

export async function startGrpcServer(options: StartOptions): Promise<RunningServer> {
  const { log } = options;
  releaseClosedHttp2Streams();
  const server = new grpc.Server({
    "grpc.keepalive_permit_without_calls": 1,
    // Clients resolve a headless Service's pods when they connect; ending connections after five minutes
    // (calls in flight get 30 s more) makes them resolve again, so pods added by a scale-up get traffic.
    "grpc.max_connection_age_ms": 300_000,
    "grpc.max_connection_age_grace_ms": 30_000,
  });
  const health = new HealthImplementation({ "": "SERVING", [READINESS_SERVICE]: "SERVING" });
  const streams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  for (const binding of options.services) {
    checkTableCovers(binding.name, binding.definition, binding.access);
    const implementation = tracked(binding.definition, options.tls.kind === "mtls" ? guarded(binding, log) : binding.implementation, streams);
    server.addService(binding.definition, implementation);
    health.setStatus(binding.name, "SERVING");
  }
  health.addToServer(server);
  const warning = insecureWarning(options.tls);
  if (warning) log.warn(warning);

  const host = options.host ?? "0.0.0.0";
  await certificatesReady(options.tls);
  const port = await bind(server, `${host}:${options.port}`, serverCredentials(options.tls));
  let healthServer: grpc.Server | undefined;
  let healthPort: number | undefined;
  if (options.healthPort !== undefined) {
    healthServer = new grpc.Server();
    health.addToServer(healthServer);
    try {
      healthPort = await bind(healthServer, `${host}:${options.healthPort}`, grpc.ServerCredentials.createInsecure());
    } catch (error) {
      server.forceShutdown();
      throw error;
    }
  }

  let stopping: Promise<void> | undefined;
  const setReady = (ready: boolean) => {
    if (stopping) return;
    const status = ready ? "SERVING" : "NOT_SERVING";
    health.setStatus(READINESS_SERVICE, status);
    for (const binding of options.services) health.setStatus(binding.name, status);
  };
  const stopServing = async () => {
    for (const stream of streams) stream.end();
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        log.warn("in-flight calls did not finish in time; forcing shutdown");
        server.forceShutdown();
        resolve();
      }, options.graceMs ?? 10_000);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    healthServer?.forceShutdown();
  };
  const steps = closeSteps([{ name: "in-flight calls", close: stopServing }, ...(options.closers ?? [])], log);
  const shutdown = () => {
    stopping ??= (async () => {
      health.setStatus("", "NOT_SERVING");
      health.setStatus(READINESS_SERVICE, "NOT_SERVING");
      for (const binding of options.services) health.setStatus(binding.name, "NOT_SERVING");
      await steps.run();
      log.info("stopped");
    })();
    return stopping;
  };

  log.info("listening", { port, host, tls: options.tls.kind, ...(healthPort ? { healthPort } : {}), services: options.services.map((s) => s.name) });
  return { port, healthPort, setReady, shutdown, closing: steps.current };
}

function bind(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(address, credentials, (error, bound) => (error ? reject(error) : resolve(bound))));
}

/** The handlers, each streaming call (bidirectional or server) kept in `streams` while open (a shutdown ends them). */
function tracked(
  definition: grpc.ServiceDefinition,
  handlers: grpc.UntypedServiceImplementation,
  streams: Set<grpc.ServerWritableStream<unknown, unknown>>,
): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = { ...handlers };
  for (const [key, handler] of Object.entries(handlers)) {
    if (!definition[key]?.responseStream) continue;
    const streamHandler = handler as (call: grpc.ServerWritableStream<unknown, unknown>) => void;
    implementation[key] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
      streams.add(call);
      call.once("close", () => streams.delete(call));
      call.once("cancelled", () => streams.delete(call));
      streamHandler(call);
    }) as grpc.UntypedHandleCall;
  }
  return implementation;
}

/** The service's handlers, each behind its access-table row. Unary RPCs, bidirectional and server streams are allowed. */
function guarded(binding: ServiceBinding, log: Logger): grpc.UntypedServiceImplementation {
  const names = rpcNames(binding.definition);
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [key, handler] of Object.entries(binding.implementation)) {
    const method = binding.definition[key];
    const rpc = names.get(key);
    if (!method || rpc === undefined) throw new Error(`${binding.name}: handler ${key} is not in the service definition`);
    if (method.requestStream && !method.responseStream) throw new Error(`${binding.name}/${rpc}: access checks do not support client streams`);
    const allowed = binding.access[rpc]!;
    if (method.responseStream) {
      const streamHandler = handler as (call: grpc.ServerWritableStream<unknown, unknown>) => void;
      implementation[key] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
        const caller = callerOf(call);
        const refused = checkAccess(caller, allowed);
        if (refused) {
          logRefusal(log, `${binding.name}/${rpc}`, caller, refused);
          recordRpcServed(`/${binding.name}/${rpc}`, 0, refused.grpcStatus, refused.code);
          call.emit("error", catalogueStatus(refused));
          return;
        }
        streamHandler(call);
      }) as grpc.UntypedHandleCall;
      continue;
    }
    const unaryHandler = handler as grpc.handleUnaryCall<unknown, unknown>;
    implementation[key] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const caller = callerOf(call);
      const refused = checkAccess(caller, allowed);
      if (refused) {
        logRefusal(log, `${binding.name}/${rpc}`, caller, refused);
        recordRpcServed(`/${binding.name}/${rpc}`, 0, refused.grpcStatus, refused.code);
        callback(catalogueStatus(refused));
        return;
      }
      unaryHandler(call, callback);
    }) as grpc.UntypedHandleCall;
  }
  return implementation;
}
