/**
 * Password hashing per SPEC.md §9: scrypt N=16384, r=16, p=1, a 64-byte key and a 16-byte random salt,
 * stored as `salt:hash` in hex. Passwords are NFKC-normalised first so that visually identical input typed
 * on different keyboards hashes the same. The salt goes to scrypt as its hex text, the format existing
 * better-auth databases use, so their stored hashes verify here unchanged.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const PARAMS = { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

function derive(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, PARAMS, (error, key) => (error ? reject(error) : resolve(key))),
  );
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
 * A hash of a random password, verified against when the user or the credential does not exist, so an
 * unknown email costs the same scrypt time as a known one (no enumeration through timing).
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}
