/**
 * Structured JSON logs, one line per event, with the request id of the current call (carried from the
 * gateway through gRPC metadata). Fields named like secrets are redacted before a line is written.
 */
import { currentRequestId } from "./request-context.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|hash|otp/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * An error as logged: name, message and stack frames, with quoted values blanked. Database drivers quote
 * the failing SQL with its values inlined (password hashes, tokens) and PostgreSQL's details repeat the
 * offending key (an email), none of which belongs in a log.
 */
export function describeError(error: unknown): string {
  const blank = (text: string) => text.replace(/'(?:[^']|'')*'/g, "'…'").replace(/=\([^)]*\)/g, "=(…)");
  if (!(error instanceof Error)) return blank(String(error));
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
  return `${error.name}: ${blank(error.message)}${frames ? `\n${frames}` : ""}`;
}

export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_FIELD.test(key)) out[key] = "[redacted]";
    else if (value instanceof Error) out[key] = describeError(value);
    else out[key] = value;
  }
  return out;
}

export function createLogger(service: string, level: LogLevel = "info", write: (line: string) => void = (line) => void process.stdout.write(`${line}\n`)): Logger {
  const emit = (at: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    const requestId = currentRequestId();
    write(JSON.stringify({ time: new Date().toISOString(), level: at, service, msg, ...(requestId ? { requestId } : {}), ...redact(fields) }));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}
