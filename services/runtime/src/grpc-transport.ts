/**
 * How a process speaks gRPC: mutual TLS from GRPC_TLS_DIR (ca.crt, tls.crt, tls.key: the cert-manager
 * Secret layout) or, only when asked for with GRPC_INSECURE=true, plaintext. Every process's config reads
 * these variables through grpcTlsFromEnv / grpcServerFromEnv, and every server and client gets its
 * credentials from here, so there is one place that decides.
 *
 * The files are read by grpc-js's FileWatcherCertificateProvider and read again every refresh interval:
 * a rotated certificate (cert-manager renews the Secret, the kubelet swaps the mounted files atomically)
 * is used by the next handshake without a restart.
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as z from "zod";
import { ConfigError, env, loadConfig } from "./config.js";

/** Re-reading three small files once a minute is cheap, and well inside cert-manager's renewal margin. */
export const DEFAULT_TLS_REFRESH_MS = 60_000;

export const TLS_FILES = { ca: "ca.crt", cert: "tls.crt", key: "tls.key" } as const;

export type GrpcTls =
  | { kind: "mtls"; dir: string; refreshMs: number }
  /** explicit: GRPC_INSECURE=true was set (rather than nothing outside production). */
  | { kind: "insecure"; explicit: boolean };

export interface GrpcServerSettings {
  tls: GrpcTls;
  /** Bind address of the gRPC port (GRPC_HOST). */
  host: string;
  /** Plaintext port serving only grpc.health.v1 (GRPC_HEALTH_PORT), for kubelet probes. */
  healthPort?: number;
  /** Port of the Prometheus /metrics endpoint (METRICS_PORT), bound on `host`; none when unset. */
  metricsPort?: number;
}

const tlsSchema = z.object({
  GRPC_TLS_DIR: z
    .string()
    .trim()
    .optional()
    .transform((value) => value || undefined),
  GRPC_INSECURE: env.bool(false),
  NODE_ENV: z.string().optional(),
});

const serverSchema = z.object({
  GRPC_HOST: z.string().trim().min(1).default("0.0.0.0"),
  GRPC_HEALTH_PORT: z.preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(1).max(65535).optional()),
  METRICS_PORT: z.preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(0).max(65535).optional()),
});

/** GRPC_TLS_DIR / GRPC_INSECURE, for any process that calls or serves gRPC. */
export function grpcTlsFromEnv(source: Record<string, string | undefined>): GrpcTls {
  const c = loadConfig(tlsSchema, source);
  if (c.GRPC_TLS_DIR && c.GRPC_INSECURE) {
    throw new ConfigError(["GRPC_INSECURE: cannot be true while GRPC_TLS_DIR is set (choose one)"]);
  }
  if (c.GRPC_TLS_DIR) return { kind: "mtls", dir: c.GRPC_TLS_DIR, refreshMs: DEFAULT_TLS_REFRESH_MS };
  if (c.NODE_ENV === "production" && !c.GRPC_INSECURE) {
    throw new ConfigError([
      "GRPC_TLS_DIR: required when NODE_ENV=production (a directory with ca.crt, tls.crt, tls.key); set GRPC_INSECURE=true to run gRPC without TLS deliberately",
    ]);
  }
  return { kind: "insecure", explicit: c.GRPC_INSECURE };
}

/** The TLS settings plus GRPC_HOST, GRPC_HEALTH_PORT and METRICS_PORT, for a process that serves gRPC. */
export function grpcServerFromEnv(source: Record<string, string | undefined>): GrpcServerSettings {
  const tls = grpcTlsFromEnv(source);
  const c = loadConfig(serverSchema, source);
  return { tls, host: c.GRPC_HOST, healthPort: c.GRPC_HEALTH_PORT, metricsPort: c.METRICS_PORT };
}

/** The warning a process logs at start when its gRPC runs without TLS. */
export function insecureWarning(tls: GrpcTls): string | undefined {
  if (tls.kind === "mtls") return undefined;
  return tls.explicit
    ? "GRPC_INSECURE=true: gRPC runs in plaintext without caller identities; anyone who reaches the port can call every RPC"
    : "GRPC_TLS_DIR is not set: gRPC runs in plaintext without caller identities (development only; refused in production)";
}

// One provider per directory and refresh interval, shared by the process's server and clients: one timer
// and one read of the files per interval. The provider stops its timer when its last user lets go.
const providers = new Map<string, grpc.experimental.FileWatcherCertificateProvider>();

function provider(tls: Extract<GrpcTls, { kind: "mtls" }>): grpc.experimental.FileWatcherCertificateProvider {
  const key = `${tls.dir}\0${tls.refreshMs}`;
  let found = providers.get(key);
  if (!found) {
    const missing = Object.values(TLS_FILES).filter((file) => {
      try {
        accessSync(join(tls.dir, file), constants.R_OK);
        return false;
      } catch {
        return true;
      }
    });
    if (missing.length > 0) throw new ConfigError([`GRPC_TLS_DIR: ${tls.dir} has no readable ${missing.join(", ")}`]);
    found = new grpc.experimental.FileWatcherCertificateProvider({
      caCertificateFile: join(tls.dir, TLS_FILES.ca),
      certificateFile: join(tls.dir, TLS_FILES.cert),
      privateKeyFile: join(tls.dir, TLS_FILES.key),
      refreshIntervalMs: tls.refreshMs,
    });
    providers.set(key, found);
  }
  return found;
}

/**
 * Resolves once our CA and certificate have been read (at once for plaintext), and fails if a file cannot
 * be read. A server that listened before that would refuse its first handshakes, and a client would fail
 * its first calls; the listeners stay, so the provider keeps its latest files for every later handshake.
 */
export function certificatesReady(tls: GrpcTls): Promise<void> {
  if (tls.kind === "insecure") return Promise.resolve();
  const files = provider(tls);
  const first = (listen: (listener: (update: unknown) => void) => void) =>
    new Promise<void>((resolve, reject) => listen((update) => (update ? resolve() : reject(new Error(`cannot read the TLS files in ${tls.dir}`)))));
  return Promise.all([first((l) => files.addCaCertificateListener(l)), first((l) => files.addIdentityCertificateListener(l))]).then(() => undefined);
}

/** A server's credentials: our certificate, and a client certificate signed by our CA is required. */
export function serverCredentials(tls: GrpcTls): grpc.ServerCredentials {
  if (tls.kind === "insecure") return grpc.ServerCredentials.createInsecure();
  const files = provider(tls);
  // One provider serves both roles (it reads all three files), which also sidesteps the argument order.
  return grpc.experimental.createCertificateProviderServerCredentials(files, files, true);
}

/** A client's credentials: our certificate for the server to identify us, our CA to verify the server. */
export function channelCredentials(tls: GrpcTls): grpc.ChannelCredentials {
  if (tls.kind === "insecure") return grpc.credentials.createInsecure();
  const files = provider(tls);
  return grpc.experimental.createCertificateProviderChannelCredentials(files, files);
}
