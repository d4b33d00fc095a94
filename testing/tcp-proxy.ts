/**
 * A TCP proxy on loopback that a test can cut and heal: one service dials another through it, so the test
 * partitions that one link (both directions, every connection) while every other link stays up.
 */
import { createServer, type Socket, connect } from "node:net";

export interface TcpProxy {
  /** host:port to dial instead of the target. */
  address: string;
  /** Where connections go; connections made before it is set wait for it (the target may start after the proxy). */
  target: string;
  /** Ends every open connection and refuses new ones until heal(). */
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(): Promise<TcpProxy> {
  let cut = false;
  let target = "";
  const open = new Set<Socket>();
  const waiting: Socket[] = [];
  const proxy: TcpProxy = {
    address: "",
    get target() {
      return target;
    },
    set target(value) {
      target = value;
      for (const client of waiting.splice(0)) forward(client);
    },
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    heal() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.cut();
        server.close(() => resolve());
      }),
  };
  const forward = (client: Socket) => {
    if (cut || client.destroyed) return void client.destroy();
    const colon = target.lastIndexOf(":");
    const upstream = connect(Number(target.slice(colon + 1)), target.slice(0, colon));
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  };
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    if (!target) return void waiting.push(client);
    forward(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("tcp proxy: no port");
  proxy.address = `127.0.0.1:${address.port}`;
  return proxy;
}
