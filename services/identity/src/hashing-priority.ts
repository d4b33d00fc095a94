/**
 * identity's scrypt derivations run on libuv's threadpool; this lowers those threads' CPU priority (nice
 * HASHING_NICE, Linux only) below every event loop's. Hashing keeps every core nobody else wants (the
 * scheduler is work-conserving), but on a host it shares with the gateway and the session service, their
 * event loops, which answer get-session in a few ms, no longer wait behind two busy scrypt threads: with
 * the memory cache and sign-ins saturating the hashing, get-session p99 went from 44-90 ms to 27 ms on a
 * 2-core machine, sign-ins unchanged (docs/adr/0026-identity-hashing-threads.md). In a cluster identity has
 * its pod's CPU to itself and the setting changes nothing.
 *
 * Only identity's own process does this (its main.ts), never a process that hosts several services (the
 * test platform), where the pool also serves the others' file and DNS work.
 */
import { randomFill } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** Raising the nice value needs no privilege; 10 gives a thread about a tenth of a nice-0 thread's share when both want the CPU. */
export const HASHING_NICE = 10;

/** The ids of this process's libuv threadpool threads (Linux names them libuv-worker). */
export function threadpoolThreads(): number[] {
  const threads: number[] = [];
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() === "libuv-worker") threads.push(Number(tid));
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** Lowers the threadpool's priority; returns the threads changed (none off Linux). */
export async function lowerHashingPriority(): Promise<number[]> {
  if (process.platform !== "linux") return [];
  // libuv starts all of its threads with the first job it is given: give it one.
  await new Promise<void>((resolve, reject) => randomFill(Buffer.alloc(1), (error) => (error ? reject(error) : resolve())));
  const threads = threadpoolThreads();
  // setpriority on a thread id changes that thread only (Linux): the event loop keeps its priority.
  for (const tid of threads) if (getPriority(tid) < HASHING_NICE) setPriority(tid, HASHING_NICE);
  return threads;
}
