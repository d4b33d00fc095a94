/** Free loopback ports, found by binding port 0 and letting go. */
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";

export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}
