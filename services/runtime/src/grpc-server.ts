/**
 * The one service bootstrap: a grpc-js server with the standard grpc.health.v1 protocol, bound to a port
 * (0 picks a free one), and a graceful shutdown on SIGTERM/SIGINT: report NOT_SERVING, stop accepting, let
 * in-flight calls finish (bounded), then close the stores.
 */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import type { Logger } from "./log.js";
import { installRpcContext } from "./log.js";

export interface ServiceBinding {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** Fully qualified name reported by the health service, e.g. auth.session.v1.SessionService. */
  name: string;
}

export interface RunningServer {
  port: number;
  /** Stops the server, then runs the close hooks. Safe to call twice. */
  shutdown(): Promise<void>;
}

export interface StartOptions {
  services: ServiceBinding[];
  port: number;
  host?: string;
  log: Logger;
  /** Closed after the server stops, in order (stores, caches, clients). */
  closers?: Array<() => Promise<void> | void>;
  /** Install SIGTERM/SIGINT handlers (main.ts yes, tests no). */
  handleSignals?: boolean;
  graceMs?: number;
}

export async function startGrpcServer(options: StartOptions): Promise<RunningServer> {
  const { log } = options;
  installRpcContext(log);
  const server = new grpc.Server({
    "grpc.keepalive_permit_without_calls": 1,
    // Clients resolve a headless Service's pods when they connect; ending connections after five minutes
    // (calls in flight get 30 s more) makes them resolve again, so pods added by a scale-up get traffic.
    "grpc.max_connection_age_ms": 300_000,
    "grpc.max_connection_age_grace_ms": 30_000,
  });
  const health = new HealthImplementation({ "": "SERVING" });
  for (const binding of options.services) {
    server.addService(binding.definition, binding.implementation);
    health.setStatus(binding.name, "SERVING");
  }
  health.addToServer(server);

  const host = options.host ?? "0.0.0.0";
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      health.setStatus("", "NOT_SERVING");
      for (const binding of options.services) health.setStatus(binding.name, "NOT_SERVING");
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
      for (const close of options.closers ?? []) {
        try {
          await close();
        } catch (error) {
          log.error("close failed", { error });
        }
      }
      log.info("stopped");
    })();
    return stopping;
  };

  if (options.handleSignals) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        log.info("shutting down", { signal });
        void shutdown().then(() => process.exit(0));
      });
    }
  }
  log.info("listening", { port, services: options.services.map((s) => s.name) });
  return { port, shutdown };
}
