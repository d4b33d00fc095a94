/**
 * The keys that seal TOTP secrets at rest and key the hashes of backup and mailed codes. A dedicated, rotatable
 * list comes from IDENTITY_TWO_FACTOR_KEYS ("id:base64key,..."; the first seals, every one opens); without
 * it one key is derived from AUTH_SECRET by HKDF, so an embedded install needs no extra setting.
 */
import { hkdfSync } from "node:crypto";
import { ConfigError } from "@auth-platform/runtime/config";

export interface TwoFactorKey {
  /** Stored beside every ciphertext and hash, so a rotated-out key can still open what it sealed. */
  id: string;
  /** AES-256-GCM key. */
  sealKey: Buffer;
  /** HMAC-SHA256 key for code hashes. */
  hashKey: Buffer;
}

export interface TwoFactorKeys {
  /** Seals new secrets and hashes new codes. */
  current: TwoFactorKey;
  /** Every key, current first. */
  all: TwoFactorKey[];
}

/** The id of the key derived from AUTH_SECRET. */
export const DERIVED_KEY_ID = "auth-secret";

const derive = (material: Buffer | string, info: string) => Buffer.from(hkdfSync("sha256", material, "auth-platform/two-factor", info, 32));

function keyFrom(id: string, material: Buffer | string): TwoFactorKey {
  return { id, sealKey: derive(material, "seal"), hashKey: derive(material, "code-hash") };
}

export function twoFactorKeys(list: string | undefined, authSecret: string): TwoFactorKeys {
  if (!list?.trim()) {
    const key = keyFrom(DERIVED_KEY_ID, authSecret);
    return { current: key, all: [key] };
  }
  const problems: string[] = [];
  const keys: TwoFactorKey[] = [];
  for (const entry of list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const colon = entry.indexOf(":");
    const id = entry.slice(0, colon);
    const material = Buffer.from(entry.slice(colon + 1), "base64");
    // Never echo the entry: it holds the key.
    if (colon <= 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id))
      problems.push(`IDENTITY_TWO_FACTOR_KEYS: entry ${keys.length + 1} must be id:base64key with an id of 1 to 32 letters, digits, - or _`);
    else if (material.length < 32) problems.push(`IDENTITY_TWO_FACTOR_KEYS: key "${id}" must be at least 32 bytes of base64 (openssl rand -base64 32)`);
    else if (keys.some((k) => k.id === id)) problems.push(`IDENTITY_TWO_FACTOR_KEYS: key id "${id}" is listed twice`);
    else keys.push(keyFrom(id, material));
  }
  if (problems.length) throw new ConfigError(problems);
  return { current: keys[0]!, all: keys };
}
