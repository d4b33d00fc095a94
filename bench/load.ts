/** One autocannon run, reduced to the figures the report prints. */
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
}

export async function runLoad(options: LoadOptions): Promise<Measurement> {
  const request: autocannon.Request = {
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
  };
  const { nextBody } = options;
  if (nextBody) request.setupRequest = (req) => ({ ...req, body: nextBody() });
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.rate ? { overallRate: options.rate } : {}),
    duration: options.duration,
    // Sign-in queues behind scrypt: allow slow answers rather than counting them as errors.
    timeout: 30,
    requests: [request],
  });
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
  };
}
