/**
 * Free loopback ports for test servers that are bound some time after they are chosen (the platform picks
 * every port first, then creates databases and starts the services).
 *
 * They are drawn below the kernel's ephemeral range: a port the kernel handed out for port 0 is also one
 * it hands to outgoing connections (to PostgreSQL, Redis, a peer service) in the meantime, and a test then
 * failed with EADDRINUSE. Each candidate is checked by binding it; a taken one is skipped, and so is a port
 * fetch refuses to connect to (the Fetch standard's "bad ports": 10080 is the one in this range).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The lowest port drawn. */
export const LOWEST = 10_000;
const FETCH_BAD_PORTS = new Set([10_080]);

/** The first port of the kernel's ephemeral range (Linux); 32768, the usual one, elsewhere. */
export function ephemeralStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && low > LOWEST + 1_000) return low;
  } catch {
    // not Linux
  }
  return 32_768;
}

const canBind = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

export async function freePorts(count: number): Promise<number[]> {
  const span = ephemeralStart() - LOWEST;
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries > 1_000) throw new Error(`no ${count} free ports found between ${LOWEST} and ${LOWEST + span}`);
    const port = LOWEST + Math.floor(Math.random() * span);
    if (!ports.has(port) && !FETCH_BAD_PORTS.has(port) && (await canBind(port))) ports.add(port);
  }
  return [...ports];
}
