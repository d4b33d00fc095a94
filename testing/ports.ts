/**
 * Free loopback ports for test servers that are bound some time after they are chosen (the platform picks
 * every port first, then creates databases and starts the services).
 *
 * They are drawn below the kernel's ephemeral range: a port the kernel handed out for port 0 is also one
 * it hands to outgoing connections (to PostgreSQL, Redis, a peer service) in the meantime, and a test then
 * failed with EADDRINUSE. Each candidate is checked by binding it; a taken one is skipped, and so is a port
 * fetch refuses to connect to (the Fetch standard's "bad ports": 10080 is the one in this range). Each vitest
 * worker draws from its own slice, and a process never draws a port twice: a chosen port is only bound
 * seconds later, so a second choice in that window (another worker, another platform) must not repeat it
 * (a full `make test` once failed with EADDRINUSE on a test platform's port).
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

/** Ports are drawn from `low` up to `low + span` (exclusive). */
export interface PortRange {
  low: number;
  span: number;
}

/** How many slices the range is cut into; vitest workers beyond that share slices. */
const SLICES = 8;

/**
 * The slice of the range a vitest worker draws from (VITEST_POOL_ID, 1 outside vitest): two workers each
 * pick ports and bind them seconds later, so without slices both could pick the same free port.
 */
export function workerRange(poolId = Number(process.env.VITEST_POOL_ID) || 1): PortRange {
  const span = Math.floor((ephemeralStart() - LOWEST) / SLICES);
  return { low: LOWEST + ((poolId - 1) % SLICES) * span, span };
}

/**
 * Ports this process has handed out (or found taken): never drawn again, so two calls whose ports are not
 * bound yet (the platform's service ports, then its admin port; two platforms started at once) cannot
 * share one.
 */
const drawn = new Set<number>();

export async function freePorts(count: number, range: PortRange = workerRange()): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count; tries++) {
    if (tries > 1_000) throw new Error(`no ${count} free ports found between ${range.low} and ${range.low + range.span}`);
    const port = range.low + Math.floor(Math.random() * range.span);
    if (drawn.has(port) || FETCH_BAD_PORTS.has(port)) continue;
    drawn.add(port);
    if (await canBind(port)) ports.push(port);
  }
  return ports;
}
