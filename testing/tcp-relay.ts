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

/** A round-robin TCP proxy in front of replicas on 127.0.0.1, as a Kubernetes Service is in front of pods. */
export interface Balancer {
  port: number;
  /** Connections each backend port took. */
  taken: Map<number, number>;
  close(): Promise<void>;
}

/**
 * Each new connection goes to the next backend; one that refuses it (a replica stopped, or not yet started
 * on its port) is skipped for the next. Nothing was sent to a refused backend, so the retry is safe; the
 * client's bytes wait, paused, until a backend took the connection. When every backend refuses, the client's
 * connection is closed.
 */
export async function startBalancer(backends: readonly number[]): Promise<Balancer> {
  const sockets = new Set<Socket>();
  const taken = new Map(backends.map((port) => [port, 0]));
  let next = 0;
  const server: Server = createServer((client) => {
    client.pause();
    client.on("error", () => undefined);
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    const first = next++ % backends.length;
    const attempt = (tried: number) => {
      if (client.destroyed) return;
      if (tried === backends.length) {
        client.destroy();
        return;
      }
      const port = backends[(first + tried) % backends.length]!;
      const upstream = createConnection({ port, host: "127.0.0.1" });
      upstream.once("error", (error: NodeJS.ErrnoException) => {
        // Refused happens before any byte went out: the next backend gets the connection.
        if (error.code === "ECONNREFUSED") attempt(tried + 1);
        else client.destroy();
      });
      upstream.once("connect", () => {
        taken.set(port, (taken.get(port) ?? 0) + 1);
        sockets.add(upstream);
        // A side that closes is ended on the other once what it sent is through (pipe's end), not destroyed:
        // destroying dropped the last frames a draining replica wrote (its answers, its GOAWAY), and the
        // calls in flight failed with "Connection dropped" as they never would behind a Service.
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
        for (const socket of [client, upstream]) socket.on("close", () => sockets.delete(socket));
        client.pipe(upstream).pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    taken,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
