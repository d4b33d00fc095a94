/**
 * Trusted devices: a browser that passed the second factor with trustDevice gets a token (in a signed cookie
 * the gateway sets) backed by a record here. Every later sign-in of that user from that browser skips the
 * second factor for 30 days, and each such sign-in renews the 30 days. The user lists and revokes them;
 * disabling two-factor or changing the password revokes them all.
 */
import { createHash } from "node:crypto";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { TrustedDeviceRecord } from "../store/two-factor-store.js";
import type { ClientInfo, Registry } from "./ports.js";

/** The trusted-device cookie lives 30 days, 2592000 s (docs/http-api/two-factor.md). */
export const TRUSTED_DEVICE_SECONDS = 2_592_000;

type Deps = Pick<Registry, "store" | "now">;

export interface DeviceToken {
  token: string;
  expiresAt: Date;
  /** When the trust was given or renewed (the cookie lives expiresAt - issuedAt). */
  issuedAt: Date;
}

/**
 * The stored form of a bearer token (trusted device, challenge). The tokens are 32 random characters (190
 * bits), so a plain SHA-256 is enough to make a database dump useless for signing in.
 */
export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("base64url");

const expiresFrom = (now: Date) => new Date(now.getTime() + TRUSTED_DEVICE_SECONDS * 1000);

export async function trustDevice(deps: Deps, userId: string, client: ClientInfo): Promise<DeviceToken> {
  const now = deps.now();
  const token = randomString(32);
  const expiresAt = expiresFrom(now);
  await deps.store.createTrustedDevice({
    id: newId(),
    userId,
    tokenHash: tokenHash(token),
    userAgent: client.userAgent ?? null,
    ipAddress: client.ipAddress ?? null,
    createdAt: now,
    lastUsedAt: now,
    expiresAt,
  });
  return { token, expiresAt, issuedAt: now };
}

/** Whether `token` is a live trusted device of this user; if so its trust is renewed for another 30 days. */
export async function useTrustedDevice(deps: Deps, userId: string, token: string | undefined): Promise<DeviceToken | null> {
  if (!token) return null;
  const device = await deps.store.findTrustedDevice(tokenHash(token));
  const now = deps.now();
  // Another user's device (a shared browser) does not count for this user.
  if (!device || device.userId !== userId || device.expiresAt <= now) return null;
  const expiresAt = expiresFrom(now);
  await deps.store.renewTrustedDevice(device.id, now, expiresAt);
  return { token, expiresAt, issuedAt: now };
}

export async function listTrustedDevices(deps: Deps, userId: string): Promise<TrustedDeviceRecord[]> {
  return deps.store.listTrustedDevices(userId, deps.now());
}

export async function revokeTrustedDevice(deps: Deps, userId: string, id: string): Promise<void> {
  await deps.store.deleteTrustedDevice(userId, id);
}
