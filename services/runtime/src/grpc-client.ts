/**
 * One way to make a gRPC client for another service: mutual TLS (or plaintext when the process runs with
 * GRPC_INSECURE), keepalive on. Under TLS the server must present a certificate of our CA for the DNS name
 * `serverName` (the service's name, e.g. "session"), whatever address it was reached at, so the check does
 * not depend on cluster DNS names.
 */
import type * as grpc from "@grpc/grpc-js";
import { channelCredentials, type GrpcTls } from "./grpc-transport.js";
import { releaseClosedHttp2Streams } from "./http2-streams.js";

export interface GrpcClientOptions {
  tls: GrpcTls;
  /** The name the server's certificate must carry (a DNS SAN): the service's name. */
  serverName: string;
}

export function createGrpcClient<C extends grpc.Client>(
  Client: new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C,
  address: string,
  options: GrpcClientOptions,
): C {
  releaseClosedHttp2Streams();
  return new Client(address, channelCredentials(options.tls), {
    ...(options.tls.kind === "mtls" ? { "grpc.ssl_target_name_override": options.serverName } : {}),
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_timeout_ms": 5_000,
    // Reconnect quickly after a service restarts, so the gateway recovers within a second or two.
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // Spread calls over every address the target resolves to (a headless Service: one per pod), not just the first.
    "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
}
