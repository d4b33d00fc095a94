/**
 * The capacity gate in a chain like the gateway's: a request for a route that waits on its peer's capacity
 * is refused before its body is read while the peer is paced and has no opening, takes the opening when
 * one has come (and hands it to the route's call), and a route that waits on nothing is never held. The
 * peer's pacing is primed through call() with a fake identity that refuses for capacity. Only Date is
 * faked: the pacing reads the clock, the hold is a real (short) timer.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import express from "express";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call, PACING_GAP_MAX_MS } from "@auth-platform/proto/rpc-client";
import { ERROR_CODE_KEY, RETRY_AFTER_KEY } from "@auth-platform/proto/rpc-server";
import type { Logger } from "@auth-platform/runtime/log";
import { currentRequestContext } from "@auth-platform/runtime/request-context";
import { capacityGate } from "./capacity-gate.js";
import { requestId } from "./context.js";
import type { Route } from "./define-route.js";
import { errorHandler } from "./errors.js";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const SIGN_IN = "/auth.identity.v1.IdentityService/SignInEmail";

/** A fake identity client whose SignInEmail refuses every call for capacity, with a hint past the longest gap. */
function refusingIdentity() {
  const client = {} as grpc.Client;
  const signInEmail = Object.assign(
    (_request: object, _metadata: grpc.Metadata, _options: Partial<grpc.CallOptions>, callback: (error: grpc.ServiceError | null, response: object) => void) => {
      queueMicrotask(() => {
        const metadata = new grpc.Metadata();
        metadata.set(ERROR_CODE_KEY, "SERVICE_UNAVAILABLE");
        metadata.set(RETRY_AFTER_KEY, "3000");
        callback(Object.assign(new Error("at capacity"), { code: grpc.status.UNAVAILABLE, details: "", metadata }), {});
      });
      return { getPeer: () => "10.0.0.1:50051" } as unknown as grpc.ClientUnaryCall;
    },
    { path: SIGN_IN },
  );
  return { client, signInEmail };
}

let close: (() => void) | undefined;
beforeEach(() => void vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 }));
afterEach(() => {
  close?.();
  vi.useRealTimers();
});

/** The chain: request id, the gate, the JSON body parser, two routes answering what their request was admitted for, the error handler. */
async function serve(identity: ReturnType<typeof refusingIdentity>): Promise<string> {
  const routes = [
    { spec: { method: "post", path: "/sign-in/email", tag: "Account", summary: "Sign in", capacity: { client: identity.client, method: identity.signInEmail } } },
    { spec: { method: "post", path: "/update-user", tag: "Account", summary: "Update" } },
  ] as Route[];
  const api = express.Router();
  api.use(requestId);
  api.use(capacityGate(routes));
  api.use(express.json());
  const answer = (req: express.Request, res: express.Response) => void res.json({ body: req.body, admitted: currentRequestContext()?.admitted ?? null });
  api.post("/sign-in/email", answer);
  api.post("/update-user", answer);
  api.use(errorHandler(silent));
  const app = express();
  app.use("/api/auth", api);
  const server = createServer(app).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`;
}

const post = (url: string, body: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("capacityGate", () => {
  it("lets a request through at once, with its opening, while its peer has said nothing", async () => {
    const base = await serve(refusingIdentity());
    const res = await post(`${base}/sign-in/email`, '{"email":"ada@example.com"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { email: "ada@example.com" }, admitted: SIGN_IN });
  });

  it("refuses before reading the body while the peer has no opening, and takes the next opening when it comes", async () => {
    const identity = refusingIdentity();
    const base = await serve(identity);
    await expect(call(identity.client, identity.signInEmail, {})).rejects.toMatchObject({ code: "SERVICE_UNAVAILABLE" });

    // Held (a real timer), then refused here: a malformed body would be a 400 had it been read.
    const refused = await post(`${base}/sign-in/email`, "{not json");
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ code: "SERVICE_UNAVAILABLE", message: "Service unavailable" });
    // Told the peer's own hint (3 s), as its refusal would have.
    expect(refused.headers.get("retry-after")).toBe("3");
    expect(refused.headers.get("x-request-id")).toBeTruthy();

    // A route that waits on nothing is not held.
    const other = await post(`${base}/update-user`, '{"name":"Ada"}');
    expect({ status: other.status, body: await other.json() }).toEqual({ status: 200, body: { body: { name: "Ada" }, admitted: null } });

    // The next opening comes a gap after the refusal: one request takes it (its call will go at once), the next is refused.
    vi.setSystemTime(Date.now() + PACING_GAP_MAX_MS);
    const admitted = await post(`${base}/sign-in/email`, '{"email":"ada@example.com"}');
    expect({ status: admitted.status, body: await admitted.json() }).toEqual({ status: 200, body: { body: { email: "ada@example.com" }, admitted: SIGN_IN } });
    expect((await post(`${base}/sign-in/email`, '{"email":"ada@example.com"}')).status).toBe(503);
  });
});
