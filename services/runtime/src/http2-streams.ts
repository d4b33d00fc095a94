/**
 * Drops the listeners of every HTTP/2 stream of this process once it has closed. A finished node:http2
 * stream outlives the young-generation collections that follow it, and grpc-js leaves its listeners on
 * the stream, so each finished gRPC call (its whole object graph, about 18 KiB for a bare unary call)
 * was promoted to the old generation and freed only by a mark-compact. Under load that made every
 * scavenge copy megabytes: the 10 to 23 ms pauses behind get-session's tail with the memory cache
 * (bench/http2-promotion.ts measures it). With the listeners gone only the stream
 * itself is kept that way: about half as much for a bare call, and in the gateway under load a quarter.
 *
 * node publishes on its close channels when it marks a stream closed, which can come before the stream
 * has delivered its last data and emitted 'close'. So the listeners go only after that 'close', the last
 * event a stream emits (node's streams emit 'error' before it), and one turn later still, in setImmediate,
 * because grpc-js handles its own 'close' in a process.nextTick. createGrpcClient and startGrpcServer turn
 * this on, for the whole process (node's diagnostics channels).
 */
import { subscribe } from "node:diagnostics_channel";
import type { Http2Stream } from "node:http2";

const CLOSE_CHANNELS = ["http2.client.stream.close", "http2.server.stream.close"] as const;

let releasing = false;

function release(message: unknown): void {
  const stream = (message as { stream?: Http2Stream }).stream;
  stream?.once("close", () => setImmediate(() => stream.removeAllListeners()));
}

/** Subscribes once per process; later calls do nothing. */
export function releaseClosedHttp2Streams(): void {
  if (releasing) return;
  releasing = true;
  for (const channel of CLOSE_CHANNELS) subscribe(channel, release);
}
