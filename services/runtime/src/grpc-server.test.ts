/** The service bootstrap: health protocol, request ids over metadata, catalogue errors, graceful shutdown. */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { afterEach, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/proto/rpc-client";
import { unary } from "@auth-platform/proto/rpc-server";
import { type RunningServer, startGrpcServer } from "./grpc-server.js";
import { createLogger, currentRequestId, withRequestId } from "./log.js";

const raw = { requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b };
const definition = {
  echoRequestId: { path: "/test.v1.Probe/EchoRequestId", requestStream: false, responseStream: false, ...raw },
  slow: { path: "/test.v1.Probe/Slow", requestStream: false, responseStream: false, ...raw },
  fail: { path: "/test.v1.Probe/Fail", requestStream: false, responseStream: false, ...raw },
  crash: { path: "/test.v1.Probe/Crash", requestStream: false, responseStream: false, ...raw },
} as grpc.ServiceDefinition;
const ProbeClient = grpc.makeGenericClientConstructor(definition, "Probe");

// The health service's own definition, from the grpc-health-check package's proto.
const healthDefinition = (() => {
  const server = { addService: (service: grpc.ServiceDefinition) => (captured = service) } as unknown as grpc.Server;
  let captured: grpc.ServiceDefinition | undefined;
  new HealthImplementation().addToServer(server);
  return captured!;
})();
const HealthClient = grpc.makeGenericClientConstructor(healthDefinition, "Health");

const log = createLogger("test", "error", () => true);
let running: RunningServer | undefined;
const closed: string[] = [];

afterEach(async () => {
  await running?.shutdown();
  running = undefined;
  closed.length = 0;
});

async function start() {
  running = await startGrpcServer({
    port: 0,
    host: "127.0.0.1",
    tls: { kind: "insecure", explicit: true },
    log,
    graceMs: 5_000,
    closers: [() => void closed.push("store")],
    services: [
      {
        name: "test.v1.Probe",
        definition,
        access: { EchoRequestId: [], Slow: [], Fail: [], Crash: [] },
        implementation: {
          echoRequestId: unary("EchoRequestId", async () => Buffer.from(currentRequestId() ?? "")),
          slow: unary("Slow", async () => {
            await new Promise((resolve) => setTimeout(resolve, 400));
            return Buffer.from("done");
          }),
          fail: unary("Fail", async () => {
            throw new AuthError("USER_NOT_FOUND");
          }),
          crash: unary("Crash", async () => {
            throw new Error("database password is hunter22");
          }),
        },
      },
    ],
  });
  const address = `127.0.0.1:${running.port}`;
  return { probe: new ProbeClient(address, grpc.credentials.createInsecure()), health: new HealthClient(address, grpc.credentials.createInsecure()) };
}

type Unary = (req: Buffer, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: (e: grpc.ServiceError | null, r: Buffer) => void) => grpc.ClientUnaryCall;
const method = (client: grpc.Client, name: string) => (client as unknown as Record<string, Unary>)[name]!;

describe("startGrpcServer", () => {
  it("answers the standard health protocol for the server and each service", async () => {
    const { health } = await start();
    const check = (service: string) =>
      new Promise<unknown>((resolve, reject) =>
        (health as unknown as Record<string, (req: unknown, cb: (e: unknown, r: unknown) => void) => void>).check!({ service }, (error, response) => (error ? reject(error) : resolve(response))),
      );
    expect(await check("")).toEqual({ status: "SERVING" });
    expect(await check("test.v1.Probe")).toEqual({ status: "SERVING" });
    await expect(check("no.such.Service")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("carries the caller's request id to the handler through metadata", async () => {
    const { probe } = await start();
    const echoed = await withRequestId("req-42", () => call(probe, method(probe, "echoRequestId"), Buffer.alloc(0)));
    expect(echoed.toString()).toBe("req-42");
  });

  it("sends catalogue errors with their code, and unknown errors as a generic INTERNAL without the cause", async () => {
    const { probe } = await start();
    await expect(call(probe, method(probe, "fail"), Buffer.alloc(0))).rejects.toMatchObject({ code: "USER_NOT_FOUND", message: "User not found" });
    const crash = call(probe, method(probe, "crash"), Buffer.alloc(0));
    await expect(crash).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
    await expect(crash).rejects.not.toMatchObject({ message: expect.stringContaining("hunter22") });
  });

  it("shuts down gracefully: in-flight calls finish, new calls are refused, then stores close", async () => {
    const { probe } = await start();
    const inFlight = call(probe, method(probe, "slow"), Buffer.alloc(0));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopping = running!.shutdown();
    expect((await inFlight).toString()).toBe("done");
    await stopping;
    expect(closed).toEqual(["store"]);
    await expect(call(probe, method(probe, "slow"), Buffer.alloc(0), { deadlineMs: 1_000 })).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    running = undefined;
  });
});
