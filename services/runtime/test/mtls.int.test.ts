/**
 * Mutual TLS and access tables on a real grpc-js server on 127.0.0.1: who gets through the handshake, who
 * gets through the access table, certificate rotation without a restart, and the health-only port.
 * Certificates come from the development CA module (deploy/dev-certs.ts), other CAs included.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call } from "@auth-platform/proto/rpc-client";
import { ERROR_CODE_KEY } from "@auth-platform/proto/rpc-server";
import { type CertificateAuthority, issueCertificateAuthority, issueWorkloadCertificate, type IssueOptions, writeTlsDir } from "../../../deploy/dev-certs.js";
import { startProcess } from "../../../deploy/processes.js";
import { createGrpcClient } from "../src/grpc-client.js";
import { type RunningServer, type ServiceBinding, startGrpcServer } from "../src/grpc-server.js";
import { channelCredentials, type GrpcTls } from "../src/grpc-transport.js";
import { createLogger } from "../src/log.js";
import { serviceRpc } from "../src/rpc.js";

const raw = { requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b };
const definition = {
  forIdentity: { path: "/test.v1.Probe/ForIdentity", requestStream: false, responseStream: false, ...raw },
  forNobody: { path: "/test.v1.Probe/ForNobody", requestStream: false, responseStream: false, ...raw },
} as grpc.ServiceDefinition;
const ProbeClient = grpc.makeGenericClientConstructor(definition, "Probe");
const healthDefinition = (() => {
  let captured: grpc.ServiceDefinition | undefined;
  new HealthImplementation().addToServer({ addService: (service: grpc.ServiceDefinition) => (captured = service) } as unknown as grpc.Server);
  return captured!;
})();
const HealthClient = grpc.makeGenericClientConstructor(healthDefinition, "Health");

const probe = (): ServiceBinding => ({
  name: "test.v1.Probe",
  definition,
  implementation: {
    forIdentity: serviceRpc(log).unary("ForIdentity", async () => Buffer.from("ok")),
    forNobody: serviceRpc(log).unary("ForNobody", async () => Buffer.from("ok")),
  },
  access: { ForIdentity: ["identity"], ForNobody: [] },
});

const log = createLogger("test", "error", () => true);
const REFRESH_MS = 150;
let root: string;
let caA: CertificateAuthority;

const mtls = (dir: string): GrpcTls => ({ kind: "mtls", dir, refreshMs: REFRESH_MS });

/** A certificate folder for `name` from `ca`. */
async function tlsDir(ca: CertificateAuthority, folder: string, name: string, options: IssueOptions = {}): Promise<string> {
  const dir = join(root, folder);
  writeTlsDir(dir, ca, await issueWorkloadCertificate(ca, name, options));
  return dir;
}

type Outcome = { ok: true } | { ok: false; code: grpc.status; errorCode?: string };

/** One call on `client`; the raw gRPC outcome. */
function callOn(client: grpc.Client, method = "forIdentity"): Promise<Outcome> {
  const fn = (client as unknown as Record<string, (req: Buffer, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null) => void) => void>)[method]!;
  return new Promise<Outcome>((resolve) =>
    fn.call(client, Buffer.from(""), new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error) =>
      resolve(error ? { ok: false, code: error.code, errorCode: error.metadata?.get(ERROR_CODE_KEY)[0] as string | undefined } : { ok: true }),
    ),
  );
}

/** A client of the probe at `address` that expects the server's certificate to name `serverName`. */
function probeClient(address: string, credentials: grpc.ChannelCredentials, serverName: string): grpc.Client {
  return new ProbeClient(address, credentials, { "grpc.ssl_target_name_override": serverName });
}

/** One call on a fresh client (so a fresh connection), closed after; the raw gRPC outcome. */
function rawCall(address: string, credentials: grpc.ChannelCredentials, serverName: string, method = "forIdentity"): Promise<Outcome> {
  const client = probeClient(address, credentials, serverName);
  return callOn(client, method).finally(() => client.close());
}

async function callAs(address: string, dir: string, method = "forIdentity", serverName = "session"): Promise<Outcome> {
  return rawCall(address, channelCredentials(mtls(dir)), serverName, method);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mtls-test-"));
  caA = await issueCertificateAuthority({ name: "test CA A" });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a service under mutual TLS", () => {
  let server: RunningServer;
  let address: string;

  beforeAll(async () => {
    server = await startGrpcServer({ services: [probe()], port: 0, host: "127.0.0.1", tls: mtls(await tlsDir(caA, "server", "session")), healthPort: 0, log, graceMs: 500 });
    address = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server?.shutdown());

  it("answers a caller whose certificate names a workload in the RPC's row", async () => {
    expect(await callAs(address, await tlsDir(caA, "identity", "identity"))).toEqual({ ok: true });
  });

  it("refuses a known caller not in the row with PERMISSION_DENIED, and an empty row refuses everyone", async () => {
    const gateway = await tlsDir(caA, "gateway", "gateway");
    expect(await callAs(address, gateway)).toEqual({ ok: false, code: grpc.status.PERMISSION_DENIED, errorCode: "CALLER_NOT_ALLOWED" });
    const identity = await tlsDir(caA, "identity", "identity");
    expect(await callAs(address, identity, "forNobody")).toEqual({ ok: false, code: grpc.status.PERMISSION_DENIED, errorCode: "CALLER_NOT_ALLOWED" });
  });

  it("refuses a certificate of our CA that names no workload of our trust domain with UNAUTHENTICATED", async () => {
    const anonymous = await tlsDir(caA, "anonymous", "identity", { noIdentity: true });
    expect(await callAs(address, anonymous)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, errorCode: "CALLER_NOT_IDENTIFIED" });
    const foreign = await tlsDir(caA, "foreign", "identity", { uri: "spiffe://elsewhere/identity" });
    expect(await callAs(address, foreign)).toEqual({ ok: false, code: grpc.status.UNAUTHENTICATED, errorCode: "CALLER_NOT_IDENTIFIED" });
  });

  it("reads each connection's certificate once, and each connection is its own caller", async () => {
    const clientOf = async (name: string) => probeClient(address, channelCredentials(mtls(await tlsDir(caA, `${name}-kept`, name))), "session");
    const identity = await clientOf("identity");
    const gateway = await clientOf("gateway");
    const reads = vi.spyOn(TLSSocket.prototype, "getPeerCertificate");
    try {
      // Interleaved on two kept connections: the gateway's connection never passes for identity's.
      for (let round = 0; round < 4; round++) {
        expect(await callOn(identity)).toEqual({ ok: true });
        expect(await callOn(gateway)).toEqual({ ok: false, code: grpc.status.PERMISSION_DENIED, errorCode: "CALLER_NOT_ALLOWED" });
      }
      const serverSide = reads.mock.contexts.filter((socket) => (socket as TLSSocket).localPort === server.port);
      expect(serverSide).toHaveLength(2);
    } finally {
      reads.mockRestore();
      identity.close();
      gateway.close();
    }
  });

  it("tells each handler the workload that called it, for rules narrower than the RPC's row", async () => {
    const whoCalled: ServiceBinding = {
      ...probe(),
      implementation: { ...probe().implementation, forIdentity: serviceRpc(log).unary("ForIdentity", async (_request, { caller }) => Buffer.from(caller ?? "")) },
      access: { ForIdentity: ["identity", "gateway"], ForNobody: [] },
    };
    const echo = await startGrpcServer({ services: [whoCalled], port: 0, host: "127.0.0.1", tls: mtls(await tlsDir(caA, "echo-server", "session")), log, graceMs: 500 });
    try {
      for (const workload of ["identity", "gateway"]) {
        const client = createGrpcClient(ProbeClient, `127.0.0.1:${echo.port}`, { tls: mtls(await tlsDir(caA, `${workload}-echo`, workload)), serverName: "session" });
        try {
          const method = (client as unknown as Record<string, Parameters<typeof call<Buffer, Buffer>>[1]>).forIdentity!;
          expect((await call(client, method, Buffer.from(""))).toString()).toBe(workload);
        } finally {
          client.close();
        }
      }
    } finally {
      await echo.shutdown();
    }
  });

  it("fails the handshake without a client certificate, and for plaintext", async () => {
    const noClientCert = grpc.credentials.createSsl(Buffer.from(caA.certPem));
    expect(await rawCall(address, noClientCert, "session")).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
    expect(await rawCall(address, grpc.credentials.createInsecure(), "session")).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });

  it("fails the handshake for a client certificate of another CA, even one naming an allowed workload", async () => {
    const caB = await issueCertificateAuthority({ name: "test CA B" });
    const impostor = await issueWorkloadCertificate(caB, "identity");
    // The impostor trusts our CA for the server (so only its own certificate is wrong).
    const credentials = grpc.credentials.createSsl(Buffer.from(caA.certPem), Buffer.from(impostor.keyPem), Buffer.from(impostor.certPem));
    expect(await rawCall(address, credentials, "session")).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });

  it("makes the client verify the server's name: a session certificate does not pass for identity", async () => {
    expect(await callAs(address, await tlsDir(caA, "identity", "identity"), "forIdentity", "identity")).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
  });

  it("through call(), a refusal becomes INTERNAL_SERVER_ERROR, never the internal code", async () => {
    const client = createGrpcClient(ProbeClient, address, { tls: mtls(await tlsDir(caA, "gateway", "gateway")), serverName: "session" });
    try {
      const method = (client as unknown as Record<string, Parameters<typeof call<Buffer, Buffer>>[1]>).forIdentity!;
      await expect(call(client, method, Buffer.from(""))).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR", http: 500 });
    } finally {
      client.close();
    }
  });

  it("answers grpc.health.v1 to any peer that completed the handshake", async () => {
    const health = new HealthClient(address, channelCredentials(mtls(await tlsDir(caA, "gateway", "gateway"))), { "grpc.ssl_target_name_override": "session" });
    try {
      expect(await check(health, "test.v1.Probe")).toEqual({ status: "SERVING" });
    } finally {
      health.close();
    }
  });

  it("serves only health, in plaintext, on the health port", async () => {
    const healthAddress = `127.0.0.1:${server.healthPort}`;
    expect(server.healthPort).toBeGreaterThan(0);
    expect(server.healthPort).not.toBe(server.port);
    const health = new HealthClient(healthAddress, grpc.credentials.createInsecure());
    try {
      expect(await check(health, "")).toEqual({ status: "SERVING" });
      expect(await check(health, "test.v1.Probe")).toEqual({ status: "SERVING" });
    } finally {
      health.close();
    }
    expect(await rawCall(healthAddress, grpc.credentials.createInsecure(), "session")).toMatchObject({ ok: false, code: grpc.status.UNIMPLEMENTED });
  });
});

function check(health: grpc.Client, service: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    (health as unknown as Record<string, (req: unknown, opts: grpc.CallOptions, cb: (e: unknown, r: unknown) => void) => void>).check!(
      { service },
      { deadline: Date.now() + 5_000 },
      (error, response) => (error ? reject(error) : resolve(response)),
    ),
  );
}

describe("certificate rotation", () => {
  it("new connections use rotated files on both sides, without restarting the server", async () => {
    const serverDir = await tlsDir(caA, "rotating-server", "session");
    const callerDir = await tlsDir(caA, "rotating-caller", "identity");
    const server = await startGrpcServer({ services: [probe()], port: 0, host: "127.0.0.1", tls: mtls(serverDir), log, graceMs: 500 });
    const address = `127.0.0.1:${server.port}`;
    try {
      expect(await callAs(address, callerDir)).toEqual({ ok: true });
      const oldCaller = await tlsDir(caA, "old-caller", "identity");

      // The Secret is renewed with a new CA: every file of both workloads changes in place.
      const caB = await issueCertificateAuthority({ name: "test CA B (rotated)" });
      await tlsDir(caB, "rotating-server", "session");
      await tlsDir(caB, "rotating-caller", "identity");

      // The same server process, once it re-read its files, refuses a client certificate of the old CA...
      await expect.poll(async () => (await callAs(address, oldCaller)).ok, { timeout: 5_000, interval: REFRESH_MS }).toBe(false);
      expect(await callAs(address, oldCaller)).toMatchObject({ ok: false, code: grpc.status.UNAVAILABLE });
      // ...and answers the caller, whose client re-read its own files: both now hold CA B certificates.
      await expect.poll(async () => (await callAs(address, callerDir)).ok, { timeout: 5_000, interval: REFRESH_MS }).toBe(true);
    } finally {
      await server.shutdown();
    }
  });
});

describe("startGrpcServer", () => {
  it("refuses to start a service whose access table misses an RPC or names an unknown one", async () => {
    const binding = { ...probe(), access: { ForIdentity: ["identity"], Typo: ["gateway"] } } as ServiceBinding;
    await expect(startGrpcServer({ services: [binding], port: 0, host: "127.0.0.1", tls: { kind: "insecure", explicit: true }, log })).rejects.toThrow(
      /no row for ForNobody; rows for unknown RPCs Typo/,
    );
  });
});

describe("a process with NODE_ENV=production", () => {
  const production = { NODE_ENV: "production", AUTH_SECRET: "production-secret-0123456789-0123456789", LOG_LEVEL: "info", PORT: "0", SESSION_PORT: "0" };

  it.each(["session", "gateway"])("%s refuses to start with neither GRPC_TLS_DIR nor GRPC_INSECURE=true", async (name) => {
    const outcome = await startProcess(name, { env: production, inheritEnv: false, timeoutMs: 20_000 }).catch((error: Error) => error);
    if (!(outcome instanceof Error)) await outcome.stop("SIGKILL");
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/exited \(1\) before listening[\s\S]*GRPC_TLS_DIR: required when NODE_ENV=production/);
  });
});
