/**
 * A finished gRPC call leaves nothing listening on its HTTP/2 streams, client side and server side, so
 * the call's objects are not kept through young-generation collections (http2-streams.ts says why), and
 * every kind of ending still reaches the caller: an answer, a large answer, an error status, a
 * cancellation while the server is still working, whose late answer goes nowhere.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Http2Stream } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EchoClientConstructor, type EchoClient, startEchoServer } from "../../../testing/grpc-echo.js";
import { createGrpcClient } from "./grpc-client.js";

const closed: Http2Stream[] = [];
const onClose = (message: unknown) => void closed.push((message as { stream: Http2Stream }).stream);
let server: grpc.Server;
let client: EchoClient;
let lateAnswers = 0;

/** The request says how to answer: "fail", "large", "slow", else an echo. */
function answer(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>): void {
  const kind = call.request.toString();
  if (kind === "fail") {
    callback({ code: grpc.status.FAILED_PRECONDITION, details: "refused on purpose" });
    return;
  }
  if (kind === "large") {
    callback(null, Buffer.alloc(512 * 1024, 7));
    return;
  }
  if (kind === "slow") {
    setTimeout(() => {
      lateAnswers++;
      callback(null, Buffer.from("too late"));
    }, 150);
    return;
  }
  callback(null, call.request);
}

beforeAll(async () => {
  subscribe("http2.client.stream.close", onClose);
  subscribe("http2.server.stream.close", onClose);
  const started = await startEchoServer(answer);
  server = started.server;
  client = createGrpcClient(EchoClientConstructor, `127.0.0.1:${started.port}`, { tls: { kind: "insecure", explicit: true }, serverName: "echo" }) as unknown as EchoClient;
});

afterAll(() => {
  unsubscribe("http2.client.stream.close", onClose);
  unsubscribe("http2.server.stream.close", onClose);
  client?.close();
  server?.forceShutdown();
});

function send(body: string, cancelAfterMs?: number): Promise<{ code: number; response?: Buffer }> {
  return new Promise((resolve) => {
    const call = client.Echo(Buffer.from(body), new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error, response) =>
      resolve(error ? { code: error.code } : { code: grpc.status.OK, response }),
    );
    if (cancelAfterMs !== undefined) setTimeout(() => call.cancel(), cancelAfterMs);
  });
}

describe("HTTP/2 streams of finished gRPC calls", () => {
  it("keep no listeners once closed, on either side, and every ending still reaches the caller", async () => {
    expect(await send("hello")).toEqual({ code: grpc.status.OK, response: Buffer.from("hello") });
    const large = await send("large");
    expect(large.code).toBe(grpc.status.OK);
    expect(large.response?.length).toBe(512 * 1024);
    expect(await send("fail")).toEqual({ code: grpc.status.FAILED_PRECONDITION });
    expect(await send("slow", 20)).toEqual({ code: grpc.status.CANCELLED });
    // The server answers the cancelled call after its stream closed: nothing breaks, nobody hears it.
    await expect.poll(() => lateAnswers, { timeout: 2_000 }).toBe(1);
    expect(await send("after")).toEqual({ code: grpc.status.OK, response: Buffer.from("after") });

    // Five calls, a client and a server stream each.
    await expect.poll(() => closed.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(10);
    await expect.poll(() => closed.filter((stream) => stream.eventNames().length > 0).length, { timeout: 2_000 }).toBe(0);
  });
});
