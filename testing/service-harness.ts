/**
 * One service under test on its own, as its main.ts starts it (start.ts): its real gRPC server on a
 * loopback port chosen by the kernel, its real store on a fresh database (real migrations: SQLite, or
 * PostgreSQL with TEST_DATABASE_URL), its log lines kept to read. Its peers are fakes (fakePeer below), so
 * a suite exercises one service without booting the platform.
 *
 * With `mtls` (the default) the service serves mutual TLS with the test certificates, and `clientAs(Client,
 * workload)` calls it as that workload, so its access table is what it is in production.
 */
import * as grpc from "@grpc/grpc-js";
import { ERROR_CODE_KEY } from "@auth-platform/proto/rpc-server";
import type { Workload } from "@auth-platform/runtime/grpc-access";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { certificatesReady, grpcTlsFromEnv, serverCredentials } from "@auth-platform/runtime/grpc-transport";
import type { RunningService, ServiceConfig, ServiceOptions } from "@auth-platform/runtime/service";
import { testCertificates, workloadEnv } from "./certificates.js";
import { createTestDatabase, type TestDatabase } from "./databases.js";

export interface ServiceHarnessOptions<Config extends ServiceConfig, Deps> {
  /** The service's workload name: its certificate and the DNS name its clients check ("session"). */
  name: Workload;
  /** The service's configuration from an environment (its config.ts). */
  configure(env: Record<string, string>): Config;
  /** The service's start (its start.ts). */
  start(config: Config, options: ServiceOptions): Promise<RunningService<Deps>>;
  /** The variable its database URL is read from; the harness gives it a fresh database unless `env` sets it. */
  databaseVar: string;
  /** The rest of its environment (peers' URLs from fakePeer, settings under test). */
  env?: Record<string, string>;
  /** Serve mutual TLS with the test certificates (default true); false: plaintext, no caller identities. */
  mtls?: boolean;
}

export interface ServiceUnderTest<Deps> {
  address: string;
  /** The service's dependencies (its registry: store, cache, clock...). */
  deps: Deps;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The environment the service was started with (the test certificates' root among it, with mtls). */
  env: Record<string, string>;
  /** A client of the service calling as `workload` (its certificate); closed by stop(). */
  clientAs<C extends grpc.Client>(Client: GrpcClientClass<C>, workload: Workload): C;
  /** Closes the clients, stops the service, drops the database the harness made. */
  stop(): Promise<void>;
}

type GrpcClientClass<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C;

/** The environment that makes a process of the harness (service or fake peer) speak mTLS or plaintext. */
export async function harnessEnv(mtls = true): Promise<Record<string, string>> {
  return mtls ? await testCertificates() : { GRPC_INSECURE: "true" };
}

export async function startServiceUnderTest<Config extends ServiceConfig, Deps>(options: ServiceHarnessOptions<Config, Deps>): Promise<ServiceUnderTest<Deps>> {
  const base = { ...(await harnessEnv(options.mtls ?? true)), LOG_LEVEL: "info", ...options.env };
  // A database given in `env` is the suite's (shared by replicas, say): used as it is and not dropped.
  const given = options.env?.[options.databaseVar];
  let db: TestDatabase | undefined = given ? undefined : await createTestDatabase(options.name);
  const env = { ...base, [options.databaseVar]: given ?? db!.url };
  const config = { ...options.configure(workloadEnv(env, options.name)), port: 0 };
  await certificatesReady(config.grpc.tls);
  const logs: Array<Record<string, unknown>> = [];
  let service: RunningService<Deps>;
  try {
    service = await options.start(config, { host: "127.0.0.1", graceMs: 1_000, logTo: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  } catch (error) {
    await db?.drop();
    throw error;
  }
  const clients: grpc.Client[] = [];
  return {
    address: service.address,
    deps: service.deps,
    logs,
    env,
    clientAs(Client, workload) {
      const client = createGrpcClient(Client, service.address, { tls: grpcTlsFromEnv(workloadEnv(env, workload)), serverName: options.name });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients.splice(0)) client.close();
      await service.close();
      await db?.drop();
      db = undefined;
    },
  };
}

/** What a fake peer answers to one unary RPC (typed by the caller's request): the response, or a thrown error (sent as INTERNAL). */
export type FakeRpc = (request: never) => unknown;

export interface FakePeer {
  /** host:port, for the service's *_SERVICE_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * A stand-in for one peer service: a gRPC server of its definition (generated, e.g. IdentityServiceService)
 * serving only the RPCs given (the rest answer UNIMPLEMENTED), presenting `workload`'s certificate under
 * mTLS so the service under test accepts it as that peer.
 */
export async function fakePeer(workload: Workload, definition: grpc.ServiceDefinition, rpcs: Record<string, FakeRpc>, env: Record<string, string>): Promise<FakePeer> {
  const tls = grpcTlsFromEnv(workloadEnv(env, workload));
  await certificatesReady(tls);
  const server = new grpc.Server();
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [name, answer] of Object.entries(rpcs)) {
    implementation[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      Promise.resolve()
        .then(() => answer(call.request as never))
        .then(
          (response) => callback(null, response),
          (error: unknown) => callback({ code: grpc.status.INTERNAL, details: String(error) }),
        );
    }) as grpc.handleUnaryCall<unknown, unknown>;
  }
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", serverCredentials(tls), (error, bound) => (error ? reject(error) : resolve(bound))));
  return {
    url: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/**
 * The catalogue code a peer answered a failed call with (`call` turns a peer's refusal into an internal
 * error for its own caller; the peer's own code travels in the call's metadata).
 */
export async function peerCodeOf(pending: Promise<unknown>): Promise<{ grpcCode: number; errorCode: string | undefined }> {
  try {
    await pending;
  } catch (error) {
    const cause = (error as { cause?: grpc.ServiceError }).cause;
    return { grpcCode: (error as { grpcCode: number }).grpcCode, errorCode: cause?.metadata?.get(ERROR_CODE_KEY)[0] as string | undefined };
  }
  throw new Error("the call succeeded");
}

/** What peerCodeOf gives for a caller outside the access table. */
export const REFUSED = { grpcCode: grpc.status.PERMISSION_DENIED, errorCode: "CALLER_NOT_ALLOWED" };
