/** Lenient readings of the values IdPs send (Entra ID sends booleans as the strings "True" and "False"). */
import { badRequest } from "./errors.js";

export function booleanValue(attribute: string, value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const lower = value.trim().toLowerCase();
    if (lower === "true") return true;
    if (lower === "false") return false;
  }
  throw badRequest("invalidValue", `${attribute} must be a boolean`);
}

const MAX_STRING = 256;

export function stringValue(attribute: string, value: unknown, options: { required?: boolean } = {}): string | undefined {
  if (value === undefined || value === null || value === "") {
    if (options.required) throw badRequest("invalidValue", `${attribute} is required`);
    return undefined;
  }
  if (typeof value !== "string") throw badRequest("invalidValue", `${attribute} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length > MAX_STRING) throw badRequest("invalidValue", `${attribute} is longer than ${MAX_STRING} characters`);
  if (trimmed === "" && options.required) throw badRequest("invalidValue", `${attribute} is required`);
  return trimmed === "" ? undefined : trimmed;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of a key of `object` compared case-insensitively (SCIM attribute names are, RFC 7643 §2.1). */
export function field(object: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === lower) return value;
  return undefined;
}
