/**
 * closeHttpServer: a finishing request completes, a slow upload is cut off after the grace, a request sent
 * down an idle keep-alive connection during the drain is answered, the server closes.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeHttpServer, trackResponses } from "./http-close.js";

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A server that answers once it has read the whole body, after `delayMs`. */
async function listening(delayMs = 0): Promise<number> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.end("done"), delayMs));
  });
  trackResponses(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as { port: number }).port;
}

/** Opens a connection and sends a request whose body is `sent` of the declared 100 bytes. */
async function upload(port: number, sent: string) {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  socket.on("error", () => {});
  const closed = once(socket, "close").then(() => answer);
  socket.write(`POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n${sent}`);
  return closed;
}

describe("closeHttpServer", () => {
  it("closes the connection of a request that does not finish in the grace period, and says so", async () => {
    const port = await listening();
    const received = once(server!, "request");
    const slow = upload(port, "only part of the body");
    await received;
    const warnings: Array<[string, unknown]> = [];
    const started = performance.now();
    await closeHttpServer(server!, 200, { warn: (msg, fields) => void warnings.push([msg, fields]) });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await slow).toBe("");
    expect(warnings).toEqual([["in-flight requests did not finish in time; closing their connections", { graceMs: 200 }]]);
    expect(server!.listening).toBe(false);
  });

  it("lets a request in flight finish within the grace period, without a warning", async () => {
    const port = await listening(100);
    const received = once(server!, "request");
    const answered = upload(port, "x".repeat(100));
    await received;
    const warnings: string[] = [];
    const started = performance.now();
    await closeHttpServer(server!, 5_000, { warn: (msg) => void warnings.push(msg) });
    // Closed once the answer was sent, not at the end of the grace (nor at the keep-alive timeout).
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await answered).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*done$/);
    expect(warnings).toEqual([]);
  });

  it("answers a request sent down a keep-alive connection that was idle when the drain began, then closes it", async () => {
    const port = await listening();
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    const request = "POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\n\r\nx";
    socket.write(request);
    await once(socket, "data");
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*keep-alive/i);
    // Idle now; the drain starts, and the client, not knowing yet, sends its next request down it.
    const closing = closeHttpServer(server!, 5_000, { warn: () => {} });
    answer = "";
    const closed = once(socket, "close");
    socket.write(request);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*done$/);
    await closing;
    expect(server!.listening).toBe(false);
  });
});
