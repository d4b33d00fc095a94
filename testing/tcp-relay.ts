import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay to a server on 127.0.0.1, which a test can cut, partition and restore: the clients behind it
 * lose the server while the others keep it (a partial outage, or one link between two services cut).
 */
export interface Relay {
  /** redis://127.0.0.1:PORT (the relay of a Redis server). */
  url: string;
  /** The relay's own port on 127.0.0.1 (for a URL of another scheme: a PostgreSQL database behind it). */
  port: number;
  /** Closes every connection and refuses new ones: a server stopped, or a host that answers with a reset. */
  cut(): void;
  /** Forwards nothing more, either way, and leaves every connection (new ones too) open: a network partition. */
  partition(): void;
  /** Forwards again; the connections held open by a partition are closed, as their peers would time out. */
  restore(): void;
  /** Sets the server's port when it was not known at start; connections made before it wait for it. */
  setTarget(port: number): void;
  close(): Promise<void>;
}

/** A relay to `targetPort`, or, without one, to the port setTarget names later (a service started after it). */
export async function startRelay(targetPort?: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const silenced = new Set<Socket>();
  const waiting: Socket[] = [];
  let target = targetPort;
  let state: "open" | "cut" | "partitioned" = "open";
  const server: Server = createServer((client) => {
    if (target === undefined) {
      client.on("error", () => undefined);
      waiting.push(client);
      return;
    }
    forward(client);
  });
  function forward(client: Socket): void {
    if (state === "cut" || client.destroyed) {
      client.destroy();
      return;
    }
    if (state === "partitioned") {
      client.on("error", () => undefined);
      silenced.add(client);
      return;
    }
    const upstream = createConnection({ port: target!, host: "127.0.0.1" });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    cut() {
      state = "cut";
      for (const socket of sockets) socket.destroy();
    },
    partition() {
      state = "partitioned";
      for (const socket of sockets) {
        socket.unpipe();
        silenced.add(socket);
      }
    },
    restore() {
      state = "open";
      for (const socket of silenced) socket.destroy();
      silenced.clear();
    },
    setTarget(port) {
      target = port;
      for (const client of waiting.splice(0)) forward(client);
    },
    async close() {
      state = "cut";
      for (const socket of [...sockets, ...silenced, ...waiting]) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
