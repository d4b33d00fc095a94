/** One way to make a gRPC client for another service: insecure channel inside the cluster, keepalive on. */
import * as grpc from "@grpc/grpc-js";

export function createGrpcClient<C extends grpc.Client>(
  Client: new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C,
  address: string,
): C {
  return new Client(address, grpc.credentials.createInsecure(), {
    "grpc.keepalive_time_ms": 30_000,
    "grpc.keepalive_timeout_ms": 5_000,
    // Reconnect quickly after a service restarts, so the gateway recovers within a second or two.
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 2_000,
    // Spread calls over every address the target resolves to (a headless Service: one per pod), not just the first.
    "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
}
