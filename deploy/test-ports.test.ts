/** testing/ports.ts: the ports the test platform binds later must not be ones the kernel hands to outgoing connections. */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { freePorts } from "../testing/ports.js";

describe("freePorts", () => {
  it("gives distinct, bindable ports below the kernel's ephemeral range", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(low);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], "127.0.0.1", resolve));
    // A taken port is skipped: the first candidate drawn is the one just bound.
    const random = Math.random;
    const spy = vi.spyOn(Math, "random").mockImplementationOnce(() => (ports[0]! - 10_000 + 0.5) / (low - 10_000)).mockImplementation(random);
    try {
      const [next] = await freePorts(1);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(next).not.toBe(ports[0]);
    } finally {
      spy.mockRestore();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("never gives a port fetch refuses to connect to", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const refused = await fetch("http://127.0.0.1:10080/").catch((error: Error) => error);
    expect((refused as Error).cause).toMatchObject({ message: "bad port" });
    const random = Math.random;
    const spy = vi.spyOn(Math, "random").mockImplementationOnce(() => (10_080 - 10_000 + 0.5) / (low - 10_000)).mockImplementation(random);
    try {
      const [port] = await freePorts(1);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(port).not.toBe(10_080);
    } finally {
      spy.mockRestore();
    }
  });
});
