/** Readiness from the registered dependencies: a failing required one makes the process unready; an optional one does not. */
import { afterEach, describe, expect, it } from "vitest";
import { checkDependencies, registerDependency } from "./dependencies.js";
import { enableMetrics } from "./metrics.js";

const removers: Array<() => void> = [];
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
});
const add = (...args: Parameters<typeof registerDependency>) => removers.push(registerDependency(...args));

const upValue = async (dependency: string) =>
  (await (await enableMetrics()).getSingleMetric("auth_dependency_up")!.get()).values.find((v) => v.labels.dependency === dependency)?.value;

describe("checkDependencies", () => {
  it("is ready while every dependency answers", async () => {
    add({ kind: "database", required: true, check: async () => undefined });
    add({ kind: "redis", required: false, check: async () => undefined });
    expect(await checkDependencies()).toEqual({ ready: true, failures: [] });
    expect(await upValue("database")).toBe(1);
  });

  it("is not ready when a required dependency fails, and says which and why", async () => {
    add({ kind: "database", required: true, check: async () => Promise.reject(new Error("connection refused")) });
    expect(await checkDependencies()).toEqual({ ready: false, failures: ["database: connection refused"] });
    expect(await upValue("database")).toBe(0);
  });

  it("stays ready when only an optional dependency (Redis) fails, and still reports it", async () => {
    add({ kind: "database", required: true, check: async () => undefined });
    add({ kind: "redis", required: false, check: async () => Promise.reject(new Error("ECONNREFUSED")) });
    expect(await checkDependencies()).toEqual({ ready: true, failures: ["redis: ECONNREFUSED"] });
    expect(await upValue("redis")).toBe(0);
  });

  it("treats a check that hangs as failed (bounded by its timeout)", async () => {
    add({ kind: "database", required: true, check: () => new Promise<void>(() => undefined) });
    const started = Date.now();
    expect(await checkDependencies()).toEqual({ ready: false, failures: ["database: timed out"] });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
