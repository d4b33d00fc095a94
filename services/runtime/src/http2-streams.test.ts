/**
 * A finished gRPC call leaves nothing listening on its HTTP/2 streams, client side and server side, so
 * the call's objects are not kept through young-generation collections (http2-streams.ts says why).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Http2Stream } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrpcClient } from "./grpc-client.js";

const echo = {
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

type EchoClient = grpc.Client & {
  Echo(request: Buffer, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: Buffer) => void): void;
};

const closed: Record<"client" | "server", Http2Stream[]> = { client: [], server: [] };
const onClient = (message: unknown) => void closed.client.push((message as { stream: Http2Stream }).stream);
const onServer = (message: unknown) => void closed.server.push((message as { stream: Http2Stream }).stream);
let server: grpc.Server;
let client: EchoClient;

beforeAll(async () => {
  subscribe("http2.client.stream.close", onClient);
  subscribe("http2.server.stream.close", onServer);
  server = new grpc.Server();
  server.addService(echo, { Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, call.request) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const Echo = grpc.makeGenericClientConstructor(echo, "Echo");
  client = createGrpcClient(Echo, `127.0.0.1:${port}`, { tls: { kind: "insecure", explicit: true }, serverName: "echo" }) as unknown as EchoClient;
});

afterAll(() => {
  unsubscribe("http2.client.stream.close", onClient);
  unsubscribe("http2.server.stream.close", onServer);
  client?.close();
  server?.forceShutdown();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("HTTP/2 streams of finished gRPC calls", () => {
  it("keep no listeners once closed, on either side, and the calls still answer", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await new Promise<Buffer | undefined>((resolve, reject) =>
        client.Echo(Buffer.from(`call ${i}`), new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error, response) => (error ? reject(error) : resolve(response))),
      );
      expect(answer?.toString()).toBe(`call ${i}`);
    }
    await expect.poll(() => closed.client.length + closed.server.length).toBeGreaterThanOrEqual(6);
    await nextTurn();
    await nextTurn();
    for (const stream of [...closed.client, ...closed.server]) {
      expect(stream.closed).toBe(true);
      expect(stream.eventNames()).toEqual([]);
    }
  });
});
