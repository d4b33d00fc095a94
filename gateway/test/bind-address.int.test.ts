/**
 * The gateway process listens on HOST. With HOST=127.0.0.1 (what `make dev`
 * sets) it cannot be reached on the machine's other addresses; by default (0.0.0.0) it can. Runs the real
 * entry point (gateway/src/main.ts); skipped on a machine with no non-loopback IPv4 address.
 */
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { freePorts } from "../../testing/platform.js";

/** An IPv4 address of this machine that is not loopback. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === "IPv4" && !address.internal)?.address;

const started: StartedProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
});

async function gatewayOn(host: string | undefined): Promise<number> {
  const [port] = await freePorts(1);
  const env: Record<string, string | undefined> = {
    PORT: String(port),
    HOST: host,
    LOG_LEVEL: "info",
    AUTH_SECRET: "test-secret-0123456789-0123456789-0123456789",
    // Nothing listens here: /ok needs no service.
    REDIS_URL: "",
  };
  started.push(await startProcess("gateway", { env, label: `gateway HOST=${host ?? "(default)"}` }));
  return port!;
}

/** "open" when a TCP connection to host:port succeeds, else the error code. */
function reach(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(3_000, () => {
      socket.destroy();
      resolve("timeout");
    });
    socket.once("connect", () => {
      socket.destroy();
      resolve("open");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
  });
}

describe.skipIf(!external)(`the gateway's bind address (other address: ${external})`, () => {
  it("HOST=127.0.0.1 answers on loopback only", async () => {
    const port = await gatewayOn("127.0.0.1");
    expect(await (await fetch(`http://127.0.0.1:${port}/api/auth/ok`)).json()).toEqual({ ok: true });
    expect(await reach(external!, port)).toBe("ECONNREFUSED");
  });

  it("the default (0.0.0.0) answers on every IPv4 address", async () => {
    const port = await gatewayOn(undefined);
    expect(await reach("127.0.0.1", port)).toBe("open");
    expect(await reach(external!, port)).toBe("open");
  });
});
