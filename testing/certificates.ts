/**
 * Test certificates: one development CA and one certificate per workload (deploy/dev-certs.ts), made once
 * per test worker process in a temporary folder and reused by every suite that worker runs.
 *
 * The platform's environment carries the folder as TEST_GRPC_TLS_ROOT; workloadEnv() turns it into the
 * GRPC_TLS_DIR of one workload, so one shared environment serves every process.
 */
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WORKLOADS } from "@auth-platform/runtime/grpc-access";
import { ensureDevCertificates } from "../deploy/dev-certs.js";

export const TLS_ROOT_VAR = "TEST_GRPC_TLS_ROOT";

let root: Promise<string> | undefined;

/** { TEST_GRPC_TLS_ROOT: <folder> }, the certificates created on first use in this worker. */
export async function testCertificates(): Promise<Record<string, string>> {
  root ??= (async () => {
    const dir = join(tmpdir(), `auth-platform-test-tls-${process.pid}`);
    const fresh = !existsSync(dir);
    await ensureDevCertificates(dir, WORKLOADS);
    if (fresh) process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })();
  return { [TLS_ROOT_VAR]: await root };
}

/** The environment of one workload: GRPC_TLS_DIR points at its certificate (unchanged without TLS). */
export function workloadEnv(env: Record<string, string>, workload: string): Record<string, string> {
  const dir = env[TLS_ROOT_VAR];
  return dir ? { ...env, GRPC_TLS_DIR: join(dir, workload) } : env;
}
