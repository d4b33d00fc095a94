/** Input rules (docs/http-api/sign-in.md) shared by the identity use cases. */
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import { imageProblem, safeImage } from "@auth-platform/runtime/user-image";
import type { IdentityConfig, UserFieldConfig } from "../config.js";

/** 255 characters at most: the size of the email column (the gateway's request shapes say the same). */
const emailSchema = z.email().max(255);

/**
 * Trimmed, valid, then lower-cased; else INVALID_EMAIL. Checked before lower-casing: a few non-ASCII letters
 * lower-case to ASCII (KELVIN SIGN to "k"), so an invalid look-alike would otherwise become another's address.
 */
export function normaliseEmail(email: string): string {
  const value = email.trim();
  if (!emailSchema.safeParse(value).success) throw new AuthError("INVALID_EMAIL");
  return value.toLowerCase();
}

export function checkPasswordLength(password: string, config: Pick<IdentityConfig, "passwordMinLength" | "passwordMaxLength">): void {
  if (password.length < config.passwordMinLength) throw new AuthError("PASSWORD_TOO_SHORT");
  if (password.length > config.passwordMaxLength) throw new AuthError("PASSWORD_TOO_LONG");
}

/** A user's name (required): a string with something in it, as sign-up and every update take it. */
export function checkName(name: unknown): string {
  if (typeof name !== "string" || !name.trim()) throw new AuthError("VALIDATION_ERROR", "Invalid name: expected a non-empty string");
  return name;
}

const USERNAME = /^[A-Za-z0-9_.]{3,30}$/;

/** 3 to 30 letters, digits, underscores or dots, checked before lower-casing (as emails are). */
export function normaliseUsername(username: string): string {
  const value = username.trim();
  if (!USERNAME.test(value)) {
    throw new AuthError("VALIDATION_ERROR", "Invalid username: use 3 to 30 letters, digits, underscores or dots");
  }
  return value.toLowerCase();
}

/** A client's image (the rule: runtime/user-image.ts): the value to store (an empty string is no image), else VALIDATION_ERROR naming why. */
export function checkImage(image: string): string | null {
  if (image === "") return null;
  const problem = imageProblem(image);
  if (problem) throw new AuthError("VALIDATION_ERROR", `Invalid image: ${problem}`);
  return image;
}

/**
 * A provider's avatar: kept only when a client's would be, else dropped (no image, never a failed sign-in).
 * An http: avatar is dropped too: upgrading it to https: could name another resource or none.
 */
export function providerImage(image: string | undefined): string | null {
  return safeImage(image);
}

/** A field name as quoted back in an error: never the whole of an arbitrarily long input. */
const quoted = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

/**
 * Checks request-supplied extra user fields against configuration. A field that is not a configured input
 * (unknown, or configured with input false, like `role`) is ignored and never stored, as a better-auth
 * server does, so front ends that send extra fields keep working.
 */
export function checkExtraFields(input: Record<string, unknown>, fields: Record<string, UserFieldConfig>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field?.input) continue;
    if (value === null || value === undefined) continue;
    if (typeof value !== field.type) throw new AuthError("VALIDATION_ERROR", `Invalid field ${quoted(name)}: expected ${field.type}`);
    out[name] = value;
  }
  for (const [name, field] of Object.entries(fields)) {
    // Own properties only: a field named like an Object.prototype member ("constructor") is present only when sent.
    if (field.required && field.input && !Object.hasOwn(out, name)) throw new AuthError("VALIDATION_ERROR", `Missing field: ${name}`);
  }
  return out;
}
