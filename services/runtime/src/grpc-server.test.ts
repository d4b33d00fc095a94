/** The service bootstrap: health protocol, request ids over metadata, catalogue errors, graceful shutdown. */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthError, PeerError } from "@auth-platform/proto/errors";
import type { Closer } from "./close-steps.js";
import { DATABASE_RETRY_AFTER_MS } from "./database-unreachable.js";
import { type RunningServer, startGrpcServer } from "./grpc-server.js";
import { testClock } from "../../../testing/test-clock.js";
import { createLogger } from "./log.js";
import { currentRequestContext, currentRequestId, withRequestContext } from "./request-context.js";
import { call, serviceRpc } from "./rpc.js";

const raw = { requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b };
const definition = {
  echoRequestId: { path: "/test.v1.Probe/EchoRequestId", requestStream: false, responseStream: false, ...raw },
  slow: { path: "/test.v1.Probe/Slow", requestStream: false, responseStream: false, ...raw },
  fail: { path: "/test.v1.Probe/Fail", requestStream: false, responseStream: false, ...raw },
  crash: { path: "/test.v1.Probe/Crash", requestStream: false, responseStream: false, ...raw },
  nested: { path: "/test.v1.Probe/Nested", requestStream: false, responseStream: false, ...raw },
  databaseAway: { path: "/test.v1.Probe/DatabaseAway", requestStream: false, responseStream: false, ...raw },
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

const logged: Array<Record<string, unknown>> = [];
const log = createLogger("test", "error", (line) => void logged.push(JSON.parse(line) as Record<string, unknown>));
const { unary } = serviceRpc(log);
/**
 * What the Nested handler does: spends `spendMs` on the test clock (its inbound deadline draws nearer), then calls
 * `method` on the same server (A -> B like identity -> session).
 */
const nested = { spendMs: 0, method: "slow", error: undefined as unknown, elapsedMs: 0 };
const clock = testClock();
/** The signal of the last Slow call's request context (aborted when its caller stopped waiting). */
let slowSignal: AbortSignal | undefined;
/** Slow answers once the test opens its gate (and at once after); `slowStarted` resolves when a Slow call begins. */
let slowGate = Promise.withResolvers<void>();
let slowStarted = Promise.withResolvers<void>();
let running: RunningServer | undefined;
let self: grpc.Client | undefined;
const closed: string[] = [];

afterEach(async () => {
  clock.restore();
  slowGate.resolve();
  await running?.shutdown();
  running = undefined;
  closed.length = 0;
  logged.length = 0;
  Object.assign(nested, { spendMs: 0, method: "slow", error: undefined, elapsedMs: 0 });
  slowSignal = undefined;
  slowGate = Promise.withResolvers<void>();
  slowStarted = Promise.withResolvers<void>();
});

async function start(closers: Closer[] = [{ name: "store", close: () => void closed.push("store") }]) {
  running = await startGrpcServer({
    port: 0,
    host: "127.0.0.1",
    tls: { kind: "insecure", explicit: true },
    log,
    graceMs: 5_000,
    closers,
    services: [
      {
        name: "test.v1.Probe",
        definition,
        access: { EchoRequestId: [], Slow: [], Fail: [], Crash: [], Nested: [], DatabaseAway: [] },
        implementation: {
          echoRequestId: unary("EchoRequestId", async () => Buffer.from(currentRequestId() ?? "")),
          slow: unary("Slow", async () => {
            slowSignal = currentRequestContext()?.signal;
            slowStarted.resolve();
            await slowGate.promise;
            return Buffer.from("done");
          }),
          fail: unary("Fail", async () => {
            throw new AuthError("USER_NOT_FOUND");
          }),
          crash: unary("Crash", async () => {
            throw new Error("database password is hunter22");
          }),
          // As MikroORM rethrows pg's error for a server that went away (its code copied, when it has one).
          databaseAway: unary("DatabaseAway", async () => {
            throw Object.assign(new Error("Connection terminated unexpectedly"), { name: "DriverException" });
          }),
          nested: unary("Nested", async () => {
            if (nested.spendMs) clock.advance(nested.spendMs);
            const began = Date.now();
            try {
              return await call(self!, method(self!, nested.method), Buffer.alloc(0));
            } catch (error) {
              nested.error = error;
              nested.elapsedMs = Date.now() - began;
              throw error;
            }
          }),
        },
      },
    ],
  });
  const address = `127.0.0.1:${running.port}`;
  self?.close();
  self = new ProbeClient(address, grpc.credentials.createInsecure());
  return { probe: new ProbeClient(address, grpc.credentials.createInsecure()), health: new HealthClient(address, grpc.credentials.createInsecure()) };
}

type Unary = (req: Buffer, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: (e: grpc.ServiceError | null, r: Buffer) => void) => grpc.ClientUnaryCall;
const method = (client: grpc.Client, name: string) => (client as unknown as Record<string, Unary>)[name]!;

describe("startGrpcServer", () => {
  it("answers the standard health protocol for the server and each service", async () => {
    const { health } = await start();
    const check = (service: string) =>
      new Promise<unknown>((resolve, reject) =>
        (health as unknown as Record<string, (req: unknown, cb: (e: unknown, r: unknown) => void) => void>).check!({ service }, (error, response) =>
          error ? reject(error) : resolve(response),
        ),
      );
    expect(await check("")).toEqual({ status: "SERVING" });
    expect(await check("test.v1.Probe")).toEqual({ status: "SERVING" });
    await expect(check("no.such.Service")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('reports readiness (the `readiness` status and each service) apart from liveness ("")', async () => {
    const { health } = await start();
    const check = (service: string) =>
      new Promise<unknown>((resolve, reject) =>
        (health as unknown as Record<string, (req: unknown, cb: (e: unknown, r: unknown) => void) => void>).check!({ service }, (error, response) =>
          error ? reject(error) : resolve(response),
        ),
      );
    expect(await check("readiness")).toEqual({ status: "SERVING" });
    running!.setReady(false);
    expect(await check("readiness")).toEqual({ status: "NOT_SERVING" });
    expect(await check("test.v1.Probe")).toEqual({ status: "NOT_SERVING" });
    expect(await check("")).toEqual({ status: "SERVING" });
    running!.setReady(true);
    expect(await check("readiness")).toEqual({ status: "SERVING" });
  });

  it("carries the caller's request id to the handler through metadata", async () => {
    const { probe } = await start();
    const echoed = await withRequestContext({ requestId: "req-42" }, () => call(probe, method(probe, "echoRequestId"), Buffer.alloc(0)));
    expect(echoed.toString()).toBe("req-42");
  });

  it("sends catalogue errors with their code, and unknown errors as a generic INTERNAL without the cause", async () => {
    const { probe } = await start();
    await expect(call(probe, method(probe, "fail"), Buffer.alloc(0))).rejects.toMatchObject({ code: "USER_NOT_FOUND", message: "User not found" });
    const crash = call(probe, method(probe, "crash"), Buffer.alloc(0));
    await expect(crash).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
    await expect(crash).rejects.not.toMatchObject({ message: expect.stringContaining("hunter22") });
  });

  it("answers a database out of reach as SERVICE_UNAVAILABLE with a retry hint, never the driver's message", async () => {
    const { probe } = await start();
    const away = call(probe, method(probe, "databaseAway"), Buffer.alloc(0));
    await expect(away).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: "Service unavailable",
      retryAfterMs: DATABASE_RETRY_AFTER_MS,
      grpcCode: grpc.status.UNAVAILABLE,
    });
    expect(logged.filter((line) => line.msg === "unexpected error")).toEqual([]);
  });

  it("shuts down gracefully: in-flight calls finish, new calls are refused, then stores close", async () => {
    const { probe } = await start();
    const inFlight = call(probe, method(probe, "slow"), Buffer.alloc(0));
    await slowStarted.promise;
    const stopping = running!.shutdown();
    slowGate.resolve();
    expect((await inFlight).toString()).toBe("done");
    await stopping;
    expect(closed).toEqual(["store"]);
    await expect(call(probe, method(probe, "slow"), Buffer.alloc(0), { deadlineMs: 1_000 })).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    running = undefined;
  });

  it("says what its shutdown is waiting for: the in-flight calls, then each close hook by name", async () => {
    let releaseStore!: () => void;
    const { probe } = await start([{ name: "store", close: () => new Promise<void>((resolve) => (releaseStore = resolve)) }]);
    expect(running!.closing()).toBeUndefined();
    const inFlight = call(probe, method(probe, "slow"), Buffer.alloc(0));
    await slowStarted.promise;
    const stopping = running!.shutdown();
    expect(running!.closing()).toBe("in-flight calls");
    slowGate.resolve();
    await inFlight;
    await vi.waitFor(() => expect(running!.closing()).toBe("store"));
    releaseStore();
    await stopping;
    expect(running!.closing()).toBeUndefined();
    running = undefined;
  });
});

describe("calls a handler makes", () => {
  it("inherit what is left of the inbound deadline: a nested call fails with DEADLINE_EXCEEDED when it is nearly spent", async () => {
    const { probe } = await start();
    // The outer call allows 1 s; the handler spends 800 ms, then calls Slow (which does not answer). With a
    // fresh 5 s deadline the nested call would outlive the outer caller; inheriting, it ends with it.
    Object.assign(nested, { spendMs: 800, method: "slow" });
    const outer = call(probe, method(probe, "nested"), Buffer.alloc(0), { deadlineMs: 1_000 });
    // The caller's own deadline and the handler's answer end together: either way, unavailable.
    await expect(outer).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    await vi.waitFor(() => expect(nested.error).toBeDefined());
    expect(nested.error).toBeInstanceOf(PeerError);
    expect(nested.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.DEADLINE_EXCEEDED });
    expect(nested.elapsedMs).toBeLessThan(350);
    // The caller's deadline, spent: an overload, not a fault (one error line per call would flood the log).
    expect(logged.filter((line) => line.msg === "unexpected error")).toEqual([]);
  });

  it("run to completion when the inbound deadline leaves them time", async () => {
    const { probe } = await start();
    Object.assign(nested, { spendMs: 0, method: "slow" });
    slowGate.resolve();
    const reply = await call(probe, method(probe, "nested"), Buffer.alloc(0), { deadlineMs: 60_000 });
    expect(reply.toString()).toBe("done");
  });

  it("answer a peer's catalogue error the handler let escape as INTERNAL, logging the peer's error as the cause", async () => {
    const { probe } = await start();
    Object.assign(nested, { method: "fail" });
    const outer = call(probe, method(probe, "nested"), Buffer.alloc(0));
    // USER_NOT_FOUND was the peer's answer to this service, not to our caller: it must not pass for theirs.
    await expect(outer).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
    expect(logged).toContainEqual(expect.objectContaining({ service: "test", msg: "unexpected error", method: "Nested", error: expect.stringContaining("User not found") }));
  });

  it("pass a peer's refusal with a retry hint (its database away) on with the hint, without logging it as unexpected", async () => {
    const { probe } = await start();
    Object.assign(nested, { method: "databaseAway" });
    const outer = call(probe, method(probe, "nested"), Buffer.alloc(0));
    await expect(outer).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: DATABASE_RETRY_AFTER_MS });
    expect(logged.filter((line) => line.msg === "unexpected error")).toEqual([]);
  });

  it("are cancelled with the call that caused them when its caller stops waiting", async () => {
    const { probe } = await start();
    Object.assign(nested, { method: "slow" });
    const stopped = new AbortController();
    const began = Date.now();
    const outer = withRequestContext({ requestId: "gone", signal: stopped.signal }, () => call(probe, method(probe, "nested"), Buffer.alloc(0), { deadlineMs: 60_000 }));
    // The caller stops waiting while the handler's nested call to Slow is under way.
    await slowStarted.promise;
    stopped.abort();
    // The caller's call ends at once, not when Slow answers (it never does here) ...
    await expect(outer).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.CANCELLED });
    expect(Date.now() - began).toBeLessThan(450);
    // ... and the handler's nested call is cancelled too: Slow's own context says nobody waits for it.
    await vi.waitFor(() => expect(nested.error).toBeDefined());
    expect(nested.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.CANCELLED });
    expect(nested.elapsedMs).toBeLessThan(350);
    expect(slowSignal?.aborted).toBe(true);
    // The handler's failure was caused by its caller going away: nothing unexpected to log.
    await new Promise((resolve) => setImmediate(resolve));
    expect(logged.filter((line) => line.msg === "unexpected error")).toEqual([]);
  });

  it("end their context's signal with one shared AbortError, not one built (stack and all) per call", async () => {
    const { probe } = await start();
    const signals: AbortSignal[] = [];
    slowGate.resolve();
    for (let i = 0; i < 2; i++) {
      await call(probe, method(probe, "slow"), Buffer.alloc(0));
      signals.push(slowSignal!);
    }
    // grpc-js reports an answered call as cancelled too: each signal ends, and both with the same reason.
    await vi.waitFor(() => expect(signals.every((signal) => signal.aborted)).toBe(true));
    expect(signals[0]!.reason).toBeInstanceOf(DOMException);
    expect((signals[0]!.reason as DOMException).name).toBe("AbortError");
    expect(signals[1]!.reason).toBe(signals[0]!.reason);
  });

  it("are not made once the caller has stopped waiting", async () => {
    const { probe } = await start();
    const stopped = new AbortController();
    stopped.abort();
    const echo = withRequestContext({ requestId: "gone", signal: stopped.signal }, () => call(probe, method(probe, "echoRequestId"), Buffer.alloc(0)));
    await expect(echo).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.CANCELLED });
  });

  it("answer SERVICE_UNAVAILABLE when the peer was unavailable", async () => {
    const { probe } = await start();
    const gone = new ProbeClient("127.0.0.1:1", grpc.credentials.createInsecure());
    self = gone;
    const outer = call(probe, method(probe, "nested"), Buffer.alloc(0));
    await expect(outer).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE", grpcCode: grpc.status.UNAVAILABLE });
  });
});
