/** testing/ports.ts: the ports the test platform binds later must not be ones the kernel hands to outgoing connections. */
import { createServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { ephemeralStart, freePorts, LOWEST, type PortRange, workerRange } from "../testing/ports.js";

const FULL_RANGE: PortRange = { low: LOWEST, span: ephemeralStart() - LOWEST };

/**
 * Runs freePorts(1) over `range` with `port` as its first random candidate; expects it to draw again (more
 * than once when the next candidate is taken too: other tests bind ports in this range meanwhile).
 */
async function drawingFirst(port: number, range: PortRange): Promise<number> {
  const random = Math.random;
  const spy = vi
    .spyOn(Math, "random")
    .mockImplementationOnce(() => (port - range.low + 0.5) / range.span)
    .mockImplementation(random);
  try {
    const [drawn] = await freePorts(1, range);
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(2);
    return drawn!;
  } finally {
    spy.mockRestore();
  }
}

const listening = async (port: number) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return server;
};

describe("freePorts", () => {
  it("gives distinct, bindable ports below the kernel's ephemeral range", async () => {
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart());
    (await listening(ports[0]!)).close();
    // A taken port is skipped: the first candidate drawn is one bound elsewhere (and never drawn here).
    let taken = Math.max(...ports);
    let server: ReturnType<typeof createServer> | undefined;
    while (!server) server = await listening(++taken).catch(() => undefined);
    try {
      expect(await drawingFirst(taken, { low: taken, span: 50 })).not.toBe(taken);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("never gives a port fetch refuses to connect to", async () => {
    const refused = await fetch("http://127.0.0.1:10080/").catch((error: Error) => error);
    expect((refused as Error).cause).toMatchObject({ message: "bad port" });
    expect(await drawingFirst(10_080, FULL_RANGE)).not.toBe(10_080);
  });

  it("each vitest worker draws from its own slice of the range", async () => {
    const [first, second] = [workerRange(1), workerRange(2)];
    expect(first.low).toBe(LOWEST);
    expect(second.low).toBeGreaterThanOrEqual(first.low + first.span);
    expect(second.low + second.span).toBeLessThanOrEqual(ephemeralStart());
    const mine = workerRange();
    for (const port of await freePorts(10)) expect(port - mine.low).toSatisfy((offset: number) => offset >= 0 && offset < mine.span);
  });

  it("never hands out a port twice in one process, also to calls made at once before any is bound", async () => {
    const range = { low: workerRange().low + workerRange().span - 40, span: 40 };
    const [a, b] = await Promise.all([freePorts(10, range), freePorts(10, range)]);
    expect(new Set([...a!, ...b!]).size).toBe(20);
    const again = await freePorts(10, range);
    for (const port of again) expect([...a!, ...b!]).not.toContain(port);
  });
});
