/**
 * How much of a finished, unreachable HTTP/2 request survives V8's young-generation collections and ends
 * up in the old generation, where only a mark-compact frees it. Outside the platform, one process, loopback:
 * a control allocating plain objects, node:http2 client requests, and @grpc/grpc-js unary calls (plaintext).
 *
 *   npx tsx bench/http2-promotion.ts
 *
 * For each kind: 300 requests, one at a time, every one finished; then two scavenges; the old generation's
 * growth is what the scavenges kept of requests nobody references any more
 * (docs/adr/0027-build-and-memory-footprint.md). The last row repeats the grpc-js calls with the platform's remedy on
 * (releaseClosedHttp2Streams, services/runtime/src/http2-streams.ts: every process that makes or serves
 * gRPC calls runs it); it stays on for the rest of the process, so it comes last. A Node or grpc-js
 * upgrade that fixes the cause shows as a grpc-js figure near the control's without it.
 */
import http2 from "node:http2";
import { once } from "node:events";
import { constants, PerformanceObserver } from "node:perf_hooks";
import type { AddressInfo } from "node:net";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as grpc from "@grpc/grpc-js";
import { releaseClosedHttp2Streams } from "@auth-platform/runtime/http2-streams";
import { EchoClientConstructor, type EchoClient, startEchoServer } from "../testing/grpc-echo.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;

const REQUESTS = 300;
const pause = () => new Promise((resolve) => setTimeout(resolve, 2));
const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === "old_space")!.space_used_size;

const h2Server = http2.createServer();
h2Server.on("stream", (stream) => {
  stream.respond({ ":status": 200 });
  stream.end(Buffer.alloc(300));
});
h2Server.listen(0, "127.0.0.1");
await once(h2Server, "listening");
const session = http2.connect(`http://127.0.0.1:${(h2Server.address() as AddressInfo).port}`);
await once(session, "connect");

const { server: grpcServer, port: grpcPort } = await startEchoServer((_call, callback) => callback(null, Buffer.alloc(300)));
const client = new EchoClientConstructor(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as unknown as EchoClient;

const kinds: Record<string, () => Promise<void>> = {
  "plain objects (control)": async () => {
    const junk = Array.from({ length: 300 }, (_, i) => ({ i, text: `item ${i}`, pair: [i, i] }));
    await Promise.resolve(junk);
  },
  "node:http2 request": () =>
    new Promise<void>((resolve) => {
      const request = session.request({ ":method": "POST", ":path": "/" });
      request.on("data", () => {});
      request.on("close", resolve);
      request.end(Buffer.alloc(200));
    }),
  "grpc-js unary call": () => unaryCall(),
  "grpc-js, streams released": () => {
    releaseClosedHttp2Streams();
    return unaryCall();
  },
};

function unaryCall(): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    client.Echo(Buffer.alloc(200), new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error) => (error ? reject(error) : resolve())),
  );
}

// A mark-compact during the requests frees what they promoted so far and would hide it: such a round is run again.
let markCompacts = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) markCompacts++;
}).observe({ entryTypes: ["gc"] });

async function promotedKiB(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 100; i++) await run(); // warm-up: code compiled, pools filled
  for (let attempt = 1; ; attempt++) {
    gc({ type: "major" });
    await pause();
    const before = oldSpaceUsed();
    const markCompactsBefore = markCompacts;
    for (let i = 0; i < REQUESTS; i++) {
      await run();
      await pause();
    }
    await pause();
    if (markCompacts === markCompactsBefore || attempt === 5) return afterScavenges(before);
  }
}

/** The old generation's growth since `before` once two scavenges ran, each in a turn of the event loop of its own. */
async function afterScavenges(before: number): Promise<number> {
  gc({ type: "minor" });
  await pause();
  gc({ type: "minor" });
  await pause();
  return (oldSpaceUsed() - before) / 1024;
}

process.stdout.write(`Node ${process.version}, grpc-js ${(await import("@grpc/grpc-js/package.json", { with: { type: "json" } })).default.version}\n`);
process.stdout.write(`old generation grown by two scavenges after ${REQUESTS} finished requests:\n`);
for (const [label, run] of Object.entries(kinds)) {
  const runs = [await promotedKiB(run), await promotedKiB(run)];
  process.stdout.write(`  ${label.padEnd(28)} ${runs.map((kib) => `${kib.toFixed(0)} KiB`).join(", ")} (${((runs[0]! + runs[1]!) / 2 / REQUESTS).toFixed(1)} KiB per request)\n`);
}
client.close();
session.close();
h2Server.close();
grpcServer.forceShutdown();
