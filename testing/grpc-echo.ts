/**
 * A bare gRPC service of one unary method on raw bytes, for tests and benchmarks about the transport
 * itself (HTTP/2 streams, collections), with no generated code or platform service in the way.
 */
import * as grpc from "@grpc/grpc-js";

export const echoService = {
  Echo: {
    path: "/test.Echo/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (value: Buffer) => value,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (value: Buffer) => value,
  },
} satisfies grpc.ServiceDefinition;

/** A client of echoService, as makeGenericClientConstructor builds it (its methods are not typed there). */
export type EchoClient = grpc.Client & {
  Echo(request: Buffer, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: Buffer) => void): grpc.ClientUnaryCall;
};

export const EchoClientConstructor = grpc.makeGenericClientConstructor(echoService, "Echo");

/** Starts a plaintext server on a free loopback port that answers Echo with `answer`. */
export async function startEchoServer(answer: grpc.handleUnaryCall<Buffer, Buffer>): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server();
  server.addService(echoService, { Echo: answer });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { server, port };
}
