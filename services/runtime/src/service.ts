/**
 * The one way a service starts, in production (its main.ts) and in tests alike: its dependencies built
 * with its own logger, its gRPC binding served by startGrpcServer (mutual TLS with access tables, the
 * health-only port), and one close() that stops the server and then the dependencies.
 */
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { type ServiceBinding, startGrpcServer } from "./grpc-server.js";
import type { GrpcServerSettings } from "./grpc-transport.js";
import { createLogger, type Logger, type LogLevel } from "./log.js";
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
}

export interface RunningService<Deps = unknown> {
  /** host:port of the gRPC server. */
  address: string;
  port: number;
  healthPort?: number;
  log: Logger;
  /** The service's dependencies (tests read its store or outbox). */
  deps: Deps;
  /** Stops serving (in-flight calls finish, bounded), then closes the dependencies. Safe to call twice. */
  close(): Promise<void>;
}

export interface ServiceDefinition<Config extends ServiceConfig, Deps extends { close(): Promise<void> }> {
  name: string;
  build(config: Config, log: Logger): Promise<Deps>;
  bind(deps: Deps, rpc: RpcServer): ServiceBinding;
}

export async function startService<Config extends ServiceConfig, Deps extends { close(): Promise<void> }>(
  service: ServiceDefinition<Config, Deps>,
  config: Config,
  options: ServiceOptions = {},
): Promise<RunningService<Deps>> {
  const log = createLogger(service.name, config.logLevel, options.logTo);
  const deps = await service.build(config, log);
  const host = options.host ?? config.grpc.host;
  try {
    const server = await startGrpcServer({
      services: [service.bind(deps, serviceRpc(log))],
      port: config.port,
      host,
      tls: config.grpc.tls,
      healthPort: config.grpc.healthPort,
      log,
      closers: [() => deps.close()],
      graceMs: options.graceMs,
    });
    return { address: `${host}:${server.port}`, port: server.port, healthPort: server.healthPort, log, deps, close: server.shutdown };
  } catch (error) {
    await deps.close();
    throw error;
  }
}
