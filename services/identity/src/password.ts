/**
 * Password hashing (docs/adr/0009-sign-in-failures-and-password-hashes.md): scrypt N=16384, r=16, p=1, a 64-byte key and a 16-byte random salt,
 * stored as `salt:hash` in hex. Passwords are NFKC-normalised first so that visually identical input typed
 * on different keyboards hashes the same. The salt goes to scrypt as its hex text, the format existing
 * better-auth databases use, so their stored hashes verify here unchanged.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { authEvents, gaugeSources } from "@auth-platform/runtime/metrics";
import { currentRequestContext } from "@auth-platform/runtime/request-context";
import type { HashingQueue } from "./hashing-queue.js";

const PARAMS = { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

function derive(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, PARAMS, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16).toString("hex");
  const key = await derive(password, salt);
  return `${salt}:${key.toString("hex")}`;
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const [salt, hash] = stored.split(":");
  if (!salt || !hash || !/^[0-9a-f]+$/i.test(hash)) return false;
  const expected = Buffer.from(hash, "hex");
  const key = await derive(password, salt);
  // Constant-time: the comparison must not tell an attacker how many leading bytes matched.
  return expected.length === key.length && timingSafeEqual(expected, key);
}

/**
 * Hashing and verification as the identity service runs them: every scrypt derivation goes through one
 * bounded queue (hashing-queue.ts), so a burst beyond capacity is refused at once with SERVICE_UNAVAILABLE.
 * `deadline` (epoch ms) is when the caller stops waiting; the hashing must end AFTER_HASH_MS before it.
 */
export interface PasswordHasher {
  hash(password: string, deadline?: number): Promise<string>;
  verify(stored: string, password: string, deadline?: number): Promise<boolean>;
  /**
   * Verifies a password when the user or the credential does not exist, against a hash no password
   * matches, through the same queue: an unknown user costs the same scrypt time as a known one and is
   * refused alike when hashing is at capacity (no enumeration through timing or through 503s).
   */
  verifyNone(password: string, deadline?: number): Promise<false>;
  /** Throws SERVICE_UNAVAILABLE when hashing for this deadline would be refused now (before any lookup). */
  admit(deadline?: number): void;
}

/** Runs one derivation and records its time (auth_password_hash_seconds; queueing excluded). */
async function timed<T>(derive: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await derive();
  } finally {
    authEvents.passwordHashed((performance.now() - started) / 1000);
  }
}

/**
 * Time kept after the hashing for the rest of the request (the session's creation, the user's insert, the
 * answer): hashing is admitted only if it ends this long before the caller's deadline. Without it, under
 * saturation the queue admitted derivations that ended just in time for CreateSession to miss the deadline:
 * the full cost of a sign-in spent, and a 503 after the caller's whole wait.
 */
export const AFTER_HASH_MS = 250;

export function passwordHasher(queue: HashingQueue): PasswordHasher {
  gaugeSources.hashingQueue(() => queue.size);
  const until = (deadline: number | undefined) => (deadline === undefined ? undefined : deadline - AFTER_HASH_MS);
  // The request the hashing serves: a derivation still waiting when its caller stops waiting is dropped.
  const stopped = () => currentRequestContext()?.signal;
  // Random salt and key in the stored format: verifying against it costs one full derivation, and no
  // password derives this key. Made without scrypt, so the first unknown sign-in costs no extra hash.
  const none = `${randomBytes(16).toString("hex")}:${randomBytes(KEY_LENGTH).toString("hex")}`;
  return {
    hash: (password, deadline) => queue.run(() => timed(() => hashPassword(password)), until(deadline), stopped()),
    verify: (stored, password, deadline) => queue.run(() => timed(() => verifyPassword(stored, password)), until(deadline), stopped()),
    verifyNone: async (password, deadline) => {
      await queue.run(() => timed(() => verifyPassword(none, password)), until(deadline), stopped());
      return false;
    },
    admit: (deadline) => queue.admit(until(deadline)),
  };
}
