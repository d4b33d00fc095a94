/**
 * The one way a service starts, in production (its main.ts) and in tests alike: its dependencies built
 * with its own logger, its gRPC binding served by startGrpcServer (mutual TLS with access tables, the
 * health-only port), its readiness following its dependencies (dependencies.ts), its metrics on
 * METRICS_PORT when set (metrics.ts), and one close() that stops the server and then the dependencies.
 */
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { checkDependencies } from "./dependencies.js";
import { type ServiceBinding, startGrpcServer } from "./grpc-server.js";
import type { GrpcServerSettings } from "./grpc-transport.js";
import { createLogger, type Logger, type LogLevel } from "./log.js";
import { enableMetrics, startMetricsServer } from "./metrics.js";
import { serviceRpc } from "./rpc.js";

/** What every service's configuration has. */
export interface ServiceConfig {
  port: number;
  logLevel: LogLevel;
  grpc: GrpcServerSettings;
}

/** How the process runs the service (production takes the defaults). */
export interface ServiceOptions {
  /** Where the service's log lines go (JSON, under its name, at the configured level); default stdout. */
  logTo?: (line: string) => void;
  /** Overrides the configured listen host (tests bind 127.0.0.1). */
  host?: string;
  /** How long in-flight calls may run on close (default 10 s). */
  graceMs?: number;
  /** How often the dependencies are checked for readiness (default 5 s). */
  readinessIntervalMs?: number;
}

export interface RunningService<Deps = unknown> {
  /** host:port of the gRPC server. */
  address: string;
  port: number;
  healthPort?: number;
  /** Port of /metrics, when METRICS_PORT is set. */
  metricsPort?: number;
  log: Logger;
  /** The service's dependencies (tests read its store or outbox). */
  deps: Deps;
  /** Stops serving (in-flight calls finish, bounded), then closes the dependencies. Safe to call twice. */
  close(): Promise<void>;
  /** What a close under way is waiting for (in-flight calls, the dependencies...); undefined otherwise. */
  closing(): string | undefined;
}

export interface ServiceDefinition<Config extends ServiceConfig, Deps extends { close(): Promise<void> }> {
  name: string;
  build(config: Config, log: Logger): Promise<Deps>;
  /** The gRPC service the process serves, or its services (one port, each with its own access table). */
  bind(deps: Deps, rpc: RpcServer): ServiceBinding | ServiceBinding[];
}

export async function startService<Config extends ServiceConfig, Deps extends { close(): Promise<void> }>(
  service: ServiceDefinition<Config, Deps>,
  config: Config,
  options: ServiceOptions = {},
): Promise<RunningService<Deps>> {
  const log = createLogger(service.name, config.logLevel, options.logTo);
  // Recording starts before the dependencies are built: a service's start-up may already call its peers.
  if (config.grpc.metricsPort !== undefined) await enableMetrics();
  const deps = await service.build(config, log);
  const host = options.host ?? config.grpc.host;
  let metrics: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  try {
    if (config.grpc.metricsPort !== undefined) {
      metrics = await startMetricsServer(config.grpc.metricsPort, host);
      log.info("metrics listening", { port: metrics.port, host, path: "/metrics" });
    }
    const readiness = { timer: undefined as NodeJS.Timeout | undefined, failing: "" };
    const server = await startGrpcServer({
      services: [service.bind(deps, serviceRpc(log))].flat(),
      port: config.port,
      host,
      tls: config.grpc.tls,
      healthPort: config.grpc.healthPort,
      log,
      closers: [
        { name: "readiness checks", close: () => clearInterval(readiness.timer) },
        { name: "metrics server", close: () => metrics?.close() },
        { name: `${service.name}'s dependencies (stores, caches, clients)`, close: () => deps.close() },
      ],
      graceMs: options.graceMs,
    });
    const check = async () => {
      const { ready, failures } = await checkDependencies();
      const failing = failures.join("; ");
      if (failing !== readiness.failing) {
        if (failing) log.warn(ready ? "optional dependency unavailable" : "not ready: a required dependency is unavailable", { failures });
        else log.info("dependencies available again");
        readiness.failing = failing;
      }
      server.setReady(ready);
    };
    readiness.timer = setInterval(() => void check(), options.readinessIntervalMs ?? 5_000);
    readiness.timer.unref();
    void check();
    return {
      address: `${host}:${server.port}`,
      port: server.port,
      healthPort: server.healthPort,
      metricsPort: metrics?.port,
      log,
      deps,
      close: server.shutdown,
      closing: server.closing,
    };
  } catch (error) {
    await metrics?.close();
    await deps.close();
    throw error;
  }
}
