/**
 * Opens what a better-auth server encrypted with its secret (two-factor secrets and backup codes, OAuth
 * tokens under `account.encryptOAuthTokens`): XChaCha20-Poly1305 under SHA-256 of the secret, the 24-byte
 * nonce first, hex; newer releases may wrap it as `$ba$<version>$<hex>` with a versioned secret. Node has
 * ChaCha20-Poly1305 but not its extended-nonce form, so the subkey (HChaCha20) is derived here.
 */
import { createDecipheriv, createHash } from "node:crypto";

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

const rotl = (v: number, n: number) => ((v << n) | (v >>> (32 - n))) >>> 0;

function quarter(s: Uint32Array, a: number, b: number, c: number, d: number): void {
  s[a] = (s[a]! + s[b]!) >>> 0;
  s[d] = rotl(s[d]! ^ s[a]!, 16);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotl(s[b]! ^ s[c]!, 12);
  s[a] = (s[a]! + s[b]!) >>> 0;
  s[d] = rotl(s[d]! ^ s[a]!, 8);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotl(s[b]! ^ s[c]!, 7);
}

/** HChaCha20: a 32-byte subkey from the key and the nonce's first 16 bytes. */
export function hchacha20(key: Buffer, nonce16: Buffer): Buffer {
  const s = new Uint32Array(16);
  s.set(SIGMA, 0);
  for (let i = 0; i < 8; i++) s[4 + i] = key.readUInt32LE(i * 4);
  for (let i = 0; i < 4; i++) s[12 + i] = nonce16.readUInt32LE(i * 4);
  for (let round = 0; round < 10; round++) {
    quarter(s, 0, 4, 8, 12);
    quarter(s, 1, 5, 9, 13);
    quarter(s, 2, 6, 10, 14);
    quarter(s, 3, 7, 11, 15);
    quarter(s, 0, 5, 10, 15);
    quarter(s, 1, 6, 11, 12);
    quarter(s, 2, 7, 8, 13);
    quarter(s, 3, 4, 9, 14);
  }
  const out = Buffer.alloc(32);
  for (let i = 0; i < 4; i++) out.writeUInt32LE(s[i]!, i * 4);
  for (let i = 0; i < 4; i++) out.writeUInt32LE(s[12 + i]!, 16 + i * 4);
  return out;
}

function openXChaCha(secret: string, hex: string): string {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) throw new Error("not a better-auth ciphertext");
  const data = Buffer.from(hex, "hex");
  if (data.length < 24 + 16) throw new Error("not a better-auth ciphertext");
  const key = createHash("sha256").update(secret).digest();
  const nonce = data.subarray(0, 24);
  const subkey = hchacha20(key, nonce.subarray(0, 16));
  const iv = Buffer.concat([Buffer.alloc(4), nonce.subarray(16)]);
  const decipher = createDecipheriv("chacha20-poly1305", subkey, iv, { authTagLength: 16 });
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(24, data.length - 16)), decipher.final()]).toString("utf8");
}

export interface BetterAuthSecrets {
  /** BETTER_AUTH_SECRET: opens bare hex values. */
  secret: string;
  /** Versioned secrets (`$ba$<version>$...` values), by version. */
  versions?: Map<number, string>;
}

/** The plaintext, or throws when the value was not encrypted with these secrets. */
export function openBetterAuthValue(secrets: BetterAuthSecrets, value: string): string {
  const envelope = /^\$ba\$(\d+)\$(.*)$/s.exec(value);
  if (!envelope) return openXChaCha(secrets.secret, value);
  const secret = secrets.versions?.get(Number(envelope[1]));
  if (!secret) throw new Error(`encrypted with better-auth secret version ${envelope[1]}, which was not given`);
  return openXChaCha(secret, envelope[2]!);
}
