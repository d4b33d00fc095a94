/** The load generators: one autocannon run, or a loop of clients that honour Retry-After; reduced to the figures the report prints. */
import { Agent, request } from "node:http";
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Requests per second over all connections; unset: as fast as answers come. */
  rate?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Per-request bodies (sign-in rotation, sign-up fresh emails): called for every request sent. */
  nextBody?: () => string;
}

export interface Measurement {
  /** 2xx responses per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** The 503 answers alone (refusals at capacity): how many, and their latency percentiles in ms. */
  refused: { count: number; p50: number; p99: number };
}

/** Latency percentiles (ms) of the 503 answers, from their latencies in any order. */
function refusedOf(latencies: number[]): Measurement["refused"] {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!) : 0);
  return { count: latencies.length, p50: at(0.5), p99: at(0.99) };
}

export async function runLoad(options: LoadOptions): Promise<Measurement> {
  const request: autocannon.Request = {
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  };
  const { nextBody } = options;
  if (nextBody) request.setupRequest = (req) => ({ ...req, body: nextBody() });
  const run = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.rate ? { overallRate: options.rate } : {}),
    duration: options.duration,
    // Sign-in queues behind scrypt: allow slow answers rather than counting them as errors.
    timeout: 30,
    requests: [request],
  });
  const refusedLatencies: number[] = [];
  run.on("response", (_client, status, _bytes, latencyMs) => {
    if (status === 503) refusedLatencies.push(latencyMs);
  });
  const result = await run;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number(stat.count);
  return {
    rps: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    total: result["2xx"] + result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    seconds: result.duration,
    refused: refusedOf(refusedLatencies),
  };
}

/** One HTTP request of the load on the agent's keep-alive connections: its status and Retry-After. */
function sendOnce(agent: Agent, url: URL, options: LoadOptions): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const body = options.nextBody?.() ?? options.body;
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? "GET",
        headers: { ...options.headers, ...(body === undefined ? {} : { "content-length": Buffer.byteLength(body) }) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] }));
        res.on("error", reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

/** Collects each answer's latency and status, and an error count; reduced to a Measurement at the end. */
function recorder() {
  const latencies: number[] = [];
  const refusedLatencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  return {
    answered(latencyMs: number, status: number) {
      latencies.push(latencyMs);
      if (status === 503) refusedLatencies.push(latencyMs);
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      if (status >= 200 && status < 300) ok++;
    },
    failed() {
      errors++;
    },
    measurement(seconds: number): Measurement {
      latencies.sort((a, b) => a - b);
      const at = (q: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!) : 0);
      return {
        rps: ok / seconds,
        p50: at(0.5),
        p99: at(0.99),
        max: latencies.length ? Math.round(latencies[latencies.length - 1]!) : 0,
        total: latencies.length,
        errors,
        timeouts: 0,
        non2xx: latencies.length - ok,
        statusCodes,
        seconds,
        refused: refusedOf(refusedLatencies),
      };
    },
  };
}

/**
 * A closed loop of `connections` clients, each on its own keep-alive connection, that behave as a client
 * honouring Retry-After should: after a response carrying it (a 503 of identity's hashing queue at
 * capacity) that client waits the advertised seconds before its next request. autocannon cannot: it sends
 * the next request at once. Latency is from sending to the full response; a refused request counts as a
 * non-2xx response like autocannon's.
 */
export async function runRetryAfterLoad(options: LoadOptions): Promise<Measurement & { retryWaits: number }> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const recorded = recorder();
  let retryWaits = 0;
  const started = performance.now();
  const end = started + options.duration * 1000;
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < end) {
        const sent = performance.now();
        try {
          const { status, retryAfter } = await sendOnce(agent, url, options);
          recorded.answered(performance.now() - sent, status);
          const waitMs = retryAfter === undefined ? 0 : Number(retryAfter) * 1000;
          if (waitMs > 0) {
            retryWaits++;
            await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, Math.max(0, end - performance.now()))));
          }
        } catch {
          recorded.failed();
        }
      }
    }),
  );
  agent.destroy();
  return { ...recorded.measurement((performance.now() - started) / 1000), retryWaits };
}

/**
 * An open loop at a steady rate: request i is due at `i / rate` seconds after the start and is sent then on
 * a free keep-alive connection (at most `connections`, or as soon as one frees), and its latency counts
 * from when it was due, so a stall anywhere (ours, or the connections all being busy) counts in full for
 * every request it delays. autocannon's `overallRate` cannot give this figure: each connection sends its
 * share of a second's requests back to back at the start of every second (a burst of all of them, then
 * silence), and its coordinated-omission correction uses `ceil(1 / rate)` = 1 ms as the interval (seconds
 * taken for milliseconds), so every response of R ms adds R synthetic samples: one 60 ms hiccup weighs as
 * 60 requests. Both made the get-session tail a figure of the generator (bench/README.md).
 */
export async function runPacedLoad(options: LoadOptions & { rate: number }): Promise<Measurement> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const recorded = recorder();
  const intervalMs = 1000 / options.rate;
  const total = Math.floor(options.duration * options.rate);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const send = (dueAt: number) => {
    const sent = sendOnce(agent, url, options).then(
      ({ status }) => recorded.answered(performance.now() - dueAt, status),
      () => recorded.failed(),
    );
    inFlight.add(sent);
    void sent.then(() => inFlight.delete(sent));
  };
  let next = 0;
  while (next < total) {
    // Everything due by now goes out (a late timer sends the overdue ones at once, their latency from when due).
    const now = performance.now();
    while (next < total && started + next * intervalMs <= now) send(started + next++ * intervalMs);
    if (next < total) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + next * intervalMs - performance.now())));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return recorded.measurement((performance.now() - started) / 1000);
}

/**
 * runPacedLoad on a worker thread of its own (its own heap, event loop and timers), for a latency measured
 * beside other load from this process: on the main thread, every pause of ours (a scavenge of the runner's
 * large heap took 10-50 ms; the sign-in load's answers) held up the paced requests and counted as the
 * platform's latency. Options must be plain data (no nextBody).
 */
export function runPacedLoadApart(options: Omit<LoadOptions, "nextBody"> & { rate: number }): Promise<Measurement> {
  const worker = new Worker(new URL("./paced-worker.ts", import.meta.url), { workerData: options });
  return new Promise<Measurement>((resolve, reject) => {
    worker.once("message", (measurement: Measurement) => resolve(measurement));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`paced load worker exited (${code}) without a measurement`)));
  });
}
