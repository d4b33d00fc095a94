/**
 * What a process depends on, for its readiness: each store and key-value client registers a check when it
 * opens and removes it when it closes, so every service built on the kit reports its own dependencies
 * without code of its own. startService polls the checks and turns the readiness health status
 * (READINESS_SERVICE) NOT_SERVING while a required one fails.
 *
 * Neither the database nor Redis is required: both are shared by every replica, so an outage of either
 * would take every replica out of its Service at once. The platform answers through them instead: Redis is
 * optional by design (the rate limiter fails open, the session cache falls back to the store under its
 * lease), and a database out of reach is answered 503 with a retry hint (rpc.ts) while the session service
 * serves the sessions its cache holds (docs/configuration.md). Their state is still exported
 * (auth_dependency_up) and logged. A dependency of one replica alone would be `required`.
 */

export interface Dependency {
  /** e.g. database, redis. */
  kind: string;
  /** Whether the service cannot answer without it. */
  required: boolean;
  /** Resolves when the dependency answers; rejects (or times out) when it does not. */
  check(): Promise<void>;
}

const dependencies = new Set<Dependency>();

/** Per kind, whether its last check passed (1) or not (0): the auth_dependency_up gauge (metrics-registry.ts). */
const lastStates = new Map<string, number>();
export const dependencyStates = (): ReadonlyMap<string, number> => lastStates;

/** Registers a dependency; the returned function removes it (on close). */
export function registerDependency(dependency: Dependency): () => void {
  dependencies.add(dependency);
  return () => void dependencies.delete(dependency);
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(check: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS)));
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check; the failures, as "kind: reason", and whether a required one failed. */
export async function checkDependencies(): Promise<{ ready: boolean; failures: string[] }> {
  const all = [...dependencies];
  const results = await Promise.allSettled(all.map((d) => withTimeout(d.check())));
  const failures: string[] = [];
  let ready = true;
  const state = new Map<string, number>();
  results.forEach((result, i) => {
    const dependency = all[i]!;
    const ok = result.status === "fulfilled";
    state.set(dependency.kind, Math.min(state.get(dependency.kind) ?? 1, ok ? 1 : 0));
    if (ok) return;
    failures.push(`${dependency.kind}: ${(result.reason as Error)?.message ?? String(result.reason)}`);
    if (dependency.required) ready = false;
  });
  for (const [kind, value] of state) lastStates.set(kind, value);
  return { ready, failures };
}
