/**
 * The keys that sign session JWTs (docs/adr/0076-session-jwts-signed-by-the-session-service.md). Time is cut
 * into rotation slots of SESSION_JWT_ROTATION_SECONDS; the key of a slot signs during it. A slot's key is made
 * on first need (the store keeps one per slot, so replicas agree), and the next slot's key is made and
 * published SESSION_JWKS_MAX_AGE plus a margin before its slot starts, so every key set a verifier caches
 * already holds the key that will sign next. A key stays published until the last token it can have signed
 * has expired, plus the margin. Private keys are sealed at rest and never leave this module but as signatures.
 */
import { createHmac, createPrivateKey, generateKeyPair, type KeyObject } from "node:crypto";
import { promisify } from "node:util";
import { newId } from "@auth-platform/runtime/random";
import { deriveKey, type Sealer, sealer } from "@auth-platform/runtime/session-token";
import { JWT_KEY_MARGIN_SECONDS, type JwtAlgorithm, type SessionConfig } from "../config.js";
import type { JwtKeyRecord, SessionStore } from "../store/session-store.js";

const generate = promisify(generateKeyPair);

/** What GET /jwks lists for one key: public parameters only. */
export interface PublicJwk {
  kid: string;
  kty: string;
  alg: string;
  use: "sig";
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

export interface SigningKey {
  kid: string;
  algorithm: JwtAlgorithm;
  privateKey: KeyObject;
  /** When the key leaves the key set: a token it signs must expire before (less the margin). */
  publishedUntil: Date;
}

export interface JwtKeyRing {
  /** The key that signs now, made when its slot has none (and the next one, once due to be published). */
  signingKey(): Promise<SigningKey>;
  /** The public keys a verifier needs now: the signing one, the next one once published, retired ones until their tokens expire. */
  publicKeys(): Promise<PublicJwk[]>;
}

/** The sealer of private keys at rest: its own key derived from AUTH_SECRET (runtime/session-token.ts). */
export const JWT_KEY_SEAL_PURPOSE = "session-jwt-signing-key";
export const JWT_KEY_SEAL_FORMAT = "jk1";

/**
 * How private keys are sealed under this AUTH_SECRET, and a short tag of that key in every slot name: after
 * a change of AUTH_SECRET the keys sealed under the old one (which no longer open) are not the slot's key,
 * a new one is made at once.
 */
export function jwtKeySealing(secret: string): { sealer: Sealer; tag: string } {
  const tag = createHmac("sha256", deriveKey(secret, JWT_KEY_SEAL_PURPOSE)).update("slot-tag").digest("base64url").slice(0, 8);
  return { sealer: sealer(secret, JWT_KEY_SEAL_PURPOSE, JWT_KEY_SEAL_FORMAT), tag };
}

/** How long a listing of the store's keys is reused; keys this replica makes are added to it at once. */
const LISTING_REUSE_MS = 10_000;
/** Keys out of the key set this long are deleted when a new key is made. */
const PRUNE_AFTER_MS = 86_400_000;

async function newKeyPair(algorithm: JwtAlgorithm): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  switch (algorithm) {
    case "EdDSA":
      return generate("ed25519");
    case "ES256":
      return generate("ec", { namedCurve: "P-256" });
    case "RS256":
      return generate("rsa", { modulusLength: 2048 });
  }
}

function publicJwk(record: JwtKeyRecord): PublicJwk {
  const { kty, crv, x, y, n, e } = JSON.parse(record.publicJwk) as Record<string, string | undefined>;
  return { kid: record.kid, kty: kty ?? "", alg: record.algorithm, use: "sig", ...(crv && { crv }), ...(x && { x }), ...(y && { y }), ...(n && { n }), ...(e && { e }) };
}

export function jwtKeyRing(deps: { store: SessionStore; config: Pick<SessionConfig, "jwt">; sealing: { sealer: Sealer; tag: string }; now: () => Date }): JwtKeyRing {
  const { algorithm, rotationSeconds, expiresInSeconds, jwksMaxAgeSeconds } = deps.config.jwt;
  const periodMs = rotationSeconds * 1000;
  const aheadMs = (jwksMaxAgeSeconds + JWT_KEY_MARGIN_SECONDS) * 1000;
  const keptMs = (expiresInSeconds + JWT_KEY_MARGIN_SECONDS) * 1000;
  const slotName = (index: number) => `${algorithm}:${rotationSeconds}:${index}:${deps.sealing.tag}`;
  /** The keys of the slots this replica has needed, by slot (a promise: one making per slot and process). */
  const held = new Map<string, Promise<JwtKeyRecord>>();
  const opened = new Map<string, KeyObject>();
  let listing: { at: number; keys: Promise<JwtKeyRecord[]> } | undefined;

  const make = async (index: number, now: Date): Promise<JwtKeyRecord> => {
    const kid = newId();
    const { publicKey, privateKey } = await newKeyPair(algorithm);
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const signsFrom = new Date(index * periodMs);
    const signsUntil = new Date((index + 1) * periodMs);
    const record: JwtKeyRecord = {
      kid,
      slot: slotName(index),
      algorithm,
      publicJwk: JSON.stringify(publicKey.export({ format: "jwk" })),
      // Bound to the kid: a sealed key copied onto another row does not open.
      privateKeySealed: deps.sealing.sealer.seal(pem, kid),
      createdAt: now,
      signsFrom,
      signsUntil,
      publishedFrom: now,
      publishedUntil: new Date(signsUntil.getTime() + keptMs),
    };
    const kept = await deps.store.addJwtKey(record);
    if (kept.kid === kid) await deps.store.deleteJwtKeys(new Date(now.getTime() - PRUNE_AFTER_MS));
    return kept;
  };

  const keyOf = (index: number, now: Date): Promise<JwtKeyRecord> => {
    const slot = slotName(index);
    let key = held.get(slot);
    if (!key) {
      key = (async () => (await deps.store.findJwtKey(slot)) ?? make(index, now))();
      held.set(slot, key);
      // A failure (the store out of reach) is not remembered: the next call tries again.
      key.catch(() => held.delete(slot));
    }
    return key;
  };

  /** The current slot's key, and the next slot's once it is due to be published. */
  const ensure = async (now: Date): Promise<JwtKeyRecord> => {
    const index = Math.floor(now.getTime() / periodMs);
    const current = await keyOf(index, now);
    if (now.getTime() >= (index + 1) * periodMs - aheadMs) await keyOf(index + 1, now);
    for (const [slot, key] of held) {
      const record = await key;
      if (record.publishedUntil <= now) {
        held.delete(slot);
        opened.delete(record.kid);
      }
    }
    return current;
  };

  return {
    async signingKey() {
      const record = await ensure(deps.now());
      let privateKey = opened.get(record.kid);
      if (!privateKey) {
        privateKey = createPrivateKey(deps.sealing.sealer.open(record.privateKeySealed, record.kid));
        opened.set(record.kid, privateKey);
      }
      return { kid: record.kid, algorithm: record.algorithm as JwtAlgorithm, privateKey, publishedUntil: record.publishedUntil };
    },
    async publicKeys() {
      const now = deps.now();
      await ensure(now);
      if (!listing || now.getTime() - listing.at >= LISTING_REUSE_MS || now.getTime() < listing.at) {
        const keys = deps.store.listJwtKeys(now);
        listing = { at: now.getTime(), keys };
        keys.catch(() => (listing = undefined));
      }
      const records = [...(await listing.keys), ...(await Promise.all(held.values()))];
      const seen = new Set<string>();
      return records
        .filter((r) => r.publishedFrom <= now && now < r.publishedUntil && !seen.has(r.kid) && seen.add(r.kid))
        .sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime())
        .map(publicJwk);
    },
  };
}
