/** A test's view of a process's Prometheus endpoint (METRICS_PORT): one scrape as a map of samples. */
import { expect } from "vitest";

/** Samples keyed `name{label="value",...}`, labels sorted, so a test can spell them in any order (sample()). */
export type Samples = Map<string, number>;

/** One scrape of the /metrics endpoint on that port. */
export async function scrapeMetrics(port: number | undefined): Promise<Samples> {
  expect(port).toBeTypeOf("number");
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  const samples: Samples = new Map();
  for (const line of (await res.text()).split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels =
      (match[2] ?? "")
        .match(/\w+="(?:[^"\\]|\\.)*"/g)
        ?.sort()
        .join(",") ?? "";
    samples.set(`${match[1]}{${labels}}`, Number(match[3]));
  }
  return samples;
}

/** The key of a sample, labels given as an object. */
export const sample = (name: string, labels: Record<string, string> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(",")}}`;
