/** testing/ports.ts: the ports the test platform binds later must not be ones the kernel hands to outgoing connections. */
import { createServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { ephemeralStart, freePorts, LOWEST } from "../testing/ports.js";

/** Runs freePorts(1) with `port` as its first random candidate; expects it to draw again. */
async function drawingFirst(port: number): Promise<number> {
  const random = Math.random;
  const spy = vi.spyOn(Math, "random").mockImplementationOnce(() => (port - LOWEST + 0.5) / (ephemeralStart() - LOWEST)).mockImplementation(random);
  try {
    const [drawn] = await freePorts(1);
    expect(spy).toHaveBeenCalledTimes(2);
    return drawn!;
  } finally {
    spy.mockRestore();
  }
}

describe("freePorts", () => {
  it("gives distinct, bindable ports below the kernel's ephemeral range", async () => {
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart());
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], "127.0.0.1", resolve));
    try {
      // A taken port is skipped: the first candidate drawn is the one just bound.
      expect(await drawingFirst(ports[0]!)).not.toBe(ports[0]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("never gives a port fetch refuses to connect to", async () => {
    const refused = await fetch("http://127.0.0.1:10080/").catch((error: Error) => error);
    expect((refused as Error).cause).toMatchObject({ message: "bad port" });
    expect(await drawingFirst(10_080)).not.toBe(10_080);
  });
});
