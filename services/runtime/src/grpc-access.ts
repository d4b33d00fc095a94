/**
 * Who is calling, and may they: the caller is the workload named by the URI SAN
 * `spiffe://auth-platform/<name>` of its client certificate (verified against our CA during the TLS
 * handshake); each service declares, per RPC, the workloads allowed to call it (docs/internal-api.md).
 */
import type * as grpc from "@grpc/grpc-js";
import type { PeerCertificate } from "node:tls";
import { AuthError } from "@auth-platform/proto/errors";
import type { Logger } from "./log.js";

export const TRUST_DOMAIN = "auth-platform";

/** Every workload that may hold a certificate of our CA. */
export const WORKLOADS = ["gateway", "identity", "session", "notification", "organization", "admin", "oauth", "sso", "internal-client"] as const;
export type Workload = (typeof WORKLOADS)[number];

/** RPC name as in the .proto (e.g. "CreateSession") -> the workloads allowed to call it. */
export type AccessTable = Readonly<Record<string, readonly Workload[]>>;

export function spiffeId(name: string): string {
  return `spiffe://${TRUST_DOMAIN}/${name}`;
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * The entries of Node's subjectaltname string ("DNS:session, URI:spiffe://auth-platform/session"), where a
 * value holding a comma or quote is written as a JSON string; undefined when the string does not parse.
 */
function sanEntries(subjectAltName: string): Array<{ type: string; value: string }> | undefined {
  const entry = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,"]*)(?:, |$)/y;
  const entries: Array<{ type: string; value: string }> = [];
  while (entry.lastIndex < subjectAltName.length) {
    const match = entry.exec(subjectAltName);
    if (!match) return undefined;
    let value = match[2]!;
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        return undefined;
      }
    }
    entries.push({ type: match[1]!, value });
  }
  return entries;
}

/**
 * The workload name in a peer certificate's subjectaltname, or undefined when it has no SPIFFE ID of our
 * trust domain, more than one SPIFFE ID, or a subjectaltname that does not parse.
 */
export function workloadOf(subjectAltName: string | undefined): string | undefined {
  if (!subjectAltName) return undefined;
  const entries = sanEntries(subjectAltName);
  if (!entries) return undefined;
  const spiffe = entries.filter((e) => e.type === "URI" && e.value.toLowerCase().startsWith("spiffe://")).map((e) => e.value);
  if (spiffe.length !== 1) return undefined;
  const prefix = `spiffe://${TRUST_DOMAIN}/`;
  if (!spiffe[0]!.startsWith(prefix)) return undefined;
  const name = spiffe[0]!.slice(prefix.length);
  return NAME.test(name) ? name : undefined;
}

/** What callerOf reads of a grpc-js server call. */
interface ServerCallPeer {
  getAuthContext(): { sslPeerCertificate?: PeerCertificate } | null;
}

/**
 * The caller of a server call, from its verified peer certificate. The certificate is that of the call's
 * connection, fixed by its handshake, so the workload is worked out once per connection: grpc-js's
 * getAuthContext() has Node build the whole certificate object (names, key, three fingerprints) on every
 * call, which was a sixth of the session service's CPU on get-session. Only a verified certificate is
 * remembered (grpc-js gives none otherwise), against that connection alone.
 */
export function callerOf(call: ServerCallPeer): string | undefined {
  const connection = connectionOf(call);
  if (connection && workloadByConnection.has(connection)) return workloadByConnection.get(connection);
  const peer = call.getAuthContext()?.sslPeerCertificate;
  const workload = workloadOf(peer?.subjectaltname);
  if (connection && peer) workloadByConnection.set(connection, workload);
  return workload;
}

const workloadByConnection = new WeakMap<object, string | undefined>();

/**
 * The HTTP/2 session (one per connection) a grpc-js server call runs on. grpc-js keeps it private: the
 * unary call object holds the intercepting call chain, whose innermost link holds the stream. Undefined
 * when that shape is not found (another grpc-js version), and callerOf then reads the certificate each call.
 */
function connectionOf(call: ServerCallPeer): object | undefined {
  let link = (call as { call?: unknown }).call as { nextCall?: unknown; stream?: { session?: unknown } } | undefined;
  for (let depth = 0; link && depth < 8; depth++) {
    const session = link.stream?.session;
    if (session && typeof session === "object") return session;
    link = link.nextCall as typeof link;
  }
  return undefined;
}

/** undefined when allowed; else the catalogue error to answer. */
export function checkAccess(caller: string | undefined, allowed: readonly string[]): AuthError | undefined {
  if (caller === undefined) return new AuthError("CALLER_NOT_IDENTIFIED");
  if (!allowed.includes(caller)) return new AuthError("CALLER_NOT_ALLOWED");
  return undefined;
}

/**
 * The one log line of a refused call, whether its RPC's row refused the caller (grpc-server.ts) or a
 * narrower rule of the handler did (`detail` says which, e.g. the template a SendEmail named).
 */
export function logRefusal(log: Logger, method: string, caller: string | undefined, refused: AuthError, detail: Record<string, unknown> = {}): void {
  log.warn("call refused", { method, caller: caller ?? "(no workload identity)", code: refused.code, ...detail });
}

/**
 * A narrower rule inside an RPC the caller's row allows (a template of SendEmail, a field of a request):
 * refuses a caller not in `allowed` as a row refuses one (CALLER_NOT_ALLOWED, the same log line, `detail`
 * saying which rule), before the handler does anything. Without mutual TLS no caller is known and no
 * access table applies either (docs/internal-api.md).
 */
export function requireWorkload(
  context: { log: Logger; mutualTls: boolean; method: string },
  caller: string | undefined,
  allowed: readonly Workload[],
  detail: Record<string, unknown>,
): void {
  if (!context.mutualTls) return;
  const refused = checkAccess(caller, allowed);
  if (!refused) return;
  logRefusal(context.log, context.method, caller, refused, detail);
  throw refused;
}

/** The RPC names of a service definition ("/auth.session.v1.SessionService/CreateSession" -> "CreateSession"). */
export function rpcNames(definition: grpc.ServiceDefinition): Map<string, string> {
  return new Map(Object.entries(definition).map(([key, method]) => [key, method.path.slice(method.path.lastIndexOf("/") + 1)]));
}

/** Every RPC of the service has a row and every row names an RPC: a new RPC cannot ship without one. */
export function checkTableCovers(service: string, definition: grpc.ServiceDefinition, table: AccessTable): void {
  const names = new Set(rpcNames(definition).values());
  const missing = [...names].filter((name) => !Object.hasOwn(table, name));
  const extra = Object.keys(table).filter((name) => !names.has(name));
  if (missing.length || extra.length) {
    throw new Error(
      `${service}: access table does not match the service` +
        (missing.length ? `; no row for ${missing.join(", ")}` : "") +
        (extra.length ? `; rows for unknown RPCs ${extra.join(", ")}` : ""),
    );
  }
}
