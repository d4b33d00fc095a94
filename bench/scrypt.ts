/**
 * Raw scrypt throughput on this machine with the platform's parameters (as in
 * services/identity/src/password.ts): N=16384, r=16, p=1, a 64-byte key, maxmem 64 MiB, async
 * crypto.scrypt on the default libuv threadpool, `concurrency` derivations kept in flight.
 *
 * measureRawScrypt() runs it in a process of its own with identity's environment (PROCESS_ENV: glibc's
 * huge pages for scrypt's 32 MiB) and identity's priority for its hashing threads (nice HASHING_NICE,
 * docs/adr/0026-identity-hashing-threads.md), so the share of raw scrypt a sign-in reaches compares like
 * with like whatever environment the benchmark itself was started with: on a machine shared with other
 * work, that work takes the same share from both. Alone on a machine the priority changes nothing. Run directly (`node --import tsx
 * bench/scrypt.ts <seconds> <concurrency>`), this file measures in its own process and prints the result
 * as JSON.
 */
import { spawn } from "node:child_process";
import { randomBytes, scrypt } from "node:crypto";
import { fileURLToPath } from "node:url";
import { PROCESS_ENV } from "../deploy/processes.js";
import { lowerHashingPriority } from "../services/identity/src/hashing-priority.js";

const PARAMS = { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

function derive(password: string, salt: string): Promise<void> {
  return new Promise((resolve, reject) => scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, PARAMS, (error) => (error ? reject(error) : resolve())));
}

export interface ScryptResult {
  hashesPerSecond: number;
  hashes: number;
  seconds: number;
  concurrency: number;
  /** The libuv threadpool size the derivations ran on. */
  threadpool: number;
  /** CPU time per hash (all threads of this process): steadier than hashes/s on a shared machine. */
  cpuMsPerHash: number;
}

export async function measureScrypt(durationSeconds: number, concurrency: number): Promise<ScryptResult> {
  // Warm the pool's threads (and the first allocation) before timing.
  await Promise.all(Array.from({ length: concurrency }, () => derive("warm-up-password", randomBytes(16).toString("hex"))));
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const end = start + durationSeconds * 1000;
  let hashes = 0;
  let lastFinish = start;
  const worker = async () => {
    while (performance.now() < end) {
      await derive("bench-password-0123", randomBytes(16).toString("hex"));
      hashes += 1;
      lastFinish = performance.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (lastFinish - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    hashesPerSecond: hashes / seconds,
    hashes,
    seconds,
    concurrency,
    threadpool: Number(process.env.UV_THREADPOOL_SIZE) || 4,
    cpuMsPerHash: (cpu.user + cpu.system) / 1000 / Math.max(1, hashes),
  };
}

/** Two raw scrypt measurements as one: their mean rate and CPU per hash. */
export function meanScrypt(a: ScryptResult, b: ScryptResult): ScryptResult {
  return {
    ...a,
    hashesPerSecond: (a.hashesPerSecond + b.hashesPerSecond) / 2,
    hashes: a.hashes + b.hashes,
    seconds: a.seconds + b.seconds,
    cpuMsPerHash: (a.cpuMsPerHash + b.cpuMsPerHash) / 2,
  };
}

/** measureScrypt in a child process with identity's environment (see the top of this file), on `cpus` only if given (taskset). */
export function measureRawScrypt(durationSeconds: number, concurrency: number, cpus?: string): Promise<ScryptResult> {
  const self = fileURLToPath(import.meta.url);
  const command = [process.execPath, "--import", "tsx", self, String(durationSeconds), String(concurrency)];
  const pinned = cpus ? ["taskset", "--cpu-list", cpus, ...command] : command;
  const child = spawn(pinned[0]!, pinned.slice(1), {
    env: { ...process.env, ...PROCESS_ENV.identity },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code !== 0) return reject(new Error(`raw scrypt measurement exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(stdout) as ScryptResult);
      } catch (error) {
        reject(new Error(`raw scrypt measurement printed no result: ${stdout.slice(0, 200)}`, { cause: error }));
      }
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [seconds, concurrency] = process.argv.slice(2).map(Number);
  if (!(seconds! > 0) || !(concurrency! > 0)) throw new Error("usage: node --import tsx bench/scrypt.ts <seconds> <concurrency>");
  await lowerHashingPriority();
  process.stdout.write(`${JSON.stringify(await measureScrypt(seconds!, concurrency!))}\n`);
}
