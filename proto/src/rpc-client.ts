/**
 * call(): a promise over a grpc-js unary client method. The caller passes its request context: the request
 * id travels in metadata, and the deadline is the sooner of the context's (what is left of the inbound call
 * that caused this one) and the default, so a nested call never outlives the call that caused it.
 *
 * A ServiceError becomes a PeerError carrying the catalogue code named in its x-error-code trailer; an
 * unreachable service or a spent deadline becomes SERVICE_UNAVAILABLE. A retry hint in the x-retry-after-ms
 * trailer becomes the PeerError's retryAfterMs, and for a small part of it (CapacityMemory) a call of that
 * RPC waits up to HOLD_MAX_MS before asking the peer that is at capacity, or is refused by the caller itself
 * when its deadline leaves no time to wait or the peer refused another call while it waited. When the
 * context's signal aborts (whoever asked stopped waiting), the call is cancelled, or not made, and fails as
 * SERVICE_UNAVAILABLE.
 */
import * as grpc from "@grpc/grpc-js";
import { type ErrorFields, INTERNAL_API_CODES, isErrorCode, PeerError, withoutStack } from "./errors.js";
import { ERROR_CODE_KEY, ERROR_FIELDS_KEY, REQUEST_ID_KEY, RETRY_AFTER_KEY, type RequestContext } from "./rpc-server.js";

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

export const DEFAULT_DEADLINE_MS = 5_000;

/** What the process that calls does around each call (metrics, trace context); none by default. */
export interface CallHooks {
  /** Adds to the outbound metadata (the trace context), and returns what to do when the call ends. */
  start?(path: string, metadata: grpc.Metadata): (grpcCode: number) => void;
}

export interface CallOptions {
  /** The request this call serves (its id, its deadline); none for a call no request caused. */
  context?: Partial<RequestContext>;
  /** The most this call may take (default DEFAULT_DEADLINE_MS), cut to the context's deadline. */
  deadlineMs?: number;
  hooks?: CallHooks;
}

export function call<Req, Res>(client: grpc.Client, method: UnaryMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
  const metadata = new grpc.Metadata();
  const requestId = options.context?.requestId;
  if (requestId) metadata.set(REQUEST_ID_KEY, requestId);
  const deadline = Math.min(options.context?.deadline ?? Infinity, Date.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS));
  const path = (method as { path?: string }).path ?? method.name;
  const signal = options.context?.signal;
  if (signal?.aborted) return Promise.reject(callerGone());
  const memory = atCapacity(client);
  const busyMs = memory.busyForMs(path);
  if (busyMs !== undefined) {
    // The peer said it is at capacity a moment ago: wait, then ask it once (holdFor says why and how long).
    const holdMs = holdFor(deadline - Date.now());
    if (holdMs <= 0) return Promise.reject(capacityRefusal(busyMs));
    return hold(holdMs, signal).then(() => {
      // Another call was refused by the peer while this one slept: it is still full, and asking it again
      // would only spend its event loop (and ours) on a refusal. Once the window lapses, the calls that
      // wake next are the peer's to admit or refuse, which opens it again.
      const stillFull = memory.refusal(path);
      if (stillFull) return Promise.reject(stillFull);
      return send(client, method, request, metadata, deadline, path, options.hooks, signal);
    });
  }
  return send(client, method, request, metadata, deadline, path, options.hooks, signal);
}

/**
 * Resolves after `ms`, or rejects as soon as `signal` aborts: a held call whose caller went away (a client
 * hanging up in a retry storm) gives up its timer and its request at once, not when the hold ends.
 */
function hold(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const leave = () => {
      clearTimeout(timer);
      reject(callerGone());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", leave);
      resolve();
    }, ms);
    signal?.addEventListener("abort", leave, { once: true });
  });
}

/** The call was not made, or was cancelled, because whoever asked for it stopped waiting (RequestContext.signal). */
function callerGone(): PeerError {
  return new PeerError("SERVICE_UNAVAILABLE", grpc.status.CANCELLED, undefined, "the caller stopped waiting");
}

/**
 * The longest a call waits, when its peer said it is at capacity a moment ago, before asking that peer
 * once (CapacityMemory): the 1 s a client honouring Retry-After waits after a 503. Without it, callers
 * that retry every 503 at once (a closed loop of clients, a retry storm) keep the caller's and the load's
 * threads always runnable, and on shared cores they take the CPU the peer's hashing needs; held, they
 * sleep. A held call still gets a 503 within about a second when the peer is still full (from the caller
 * itself when the peer refused another call in the meantime), never a wait for the queue past its
 * deadline (docs/adr/0025-sign-in-beyond-capacity.md).
 */
export const HOLD_MAX_MS = 1_000;

/** How long to hold a call with `leftMs` to its deadline: at most half of it (the peer gets the rest), else not at all. */
export function holdFor(leftMs: number): number {
  const hold = Math.min(HOLD_MAX_MS, Math.floor(leftMs / 2));
  return hold >= MIN_HOLD_MS ? hold : 0;
}
/** Below this, holding is pointless: the call is refused at once as before. */
const MIN_HOLD_MS = 50;

function send<Req, Res>(
  client: grpc.Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadata: grpc.Metadata,
  deadline: number,
  path: string,
  hooks: CallHooks | undefined,
  signal: AbortSignal | undefined,
): Promise<Res> {
  const end = hooks?.start?.(path, metadata);
  return new Promise((resolve, reject) => {
    const cancel = () => pending.cancel();
    const pending = method.call(client, request, metadata, { deadline }, (error, response) => {
      signal?.removeEventListener("abort", cancel);
      end?.(error ? error.code : grpc.status.OK);
      const peer = peerOf(pending);
      if (error && signal?.aborted && error.code === grpc.status.CANCELLED) {
        reject(callerGone());
      } else if (error) {
        const peerError = fromServiceError(error);
        // Only a peer at capacity makes its callers hold: a hint on another refusal (one user's too many
        // requests) is that user's, passed on, and must not turn away everyone's calls of the method.
        atCapacity(client).answered(path, peer, peerError.code === "SERVICE_UNAVAILABLE" ? peerError.retryAfterMs : undefined);
        reject(peerError);
      } else {
        atCapacity(client).answered(path, peer, undefined);
        resolve(response);
      }
    });
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

/**
 * The longest a caller refuses on its own after a peer said it is at capacity (SERVICE_UNAVAILABLE with a retry
 * hint: identity's hashing queue). Under a flood of retries, the refusals then cost the peer nothing (its
 * event loop shares the CPU with its hashing); a small part of the hint only, so a peer that frees up
 * sooner than it estimated soon gets calls again.
 */
export const SHORT_CIRCUIT_MAX_MS = 250;
/** Peers heard from this recently count as the ones a call may reach (the replicas behind the address). */
const PEER_SEEN_MS = 10_000;

/**
 * Per client: for each RPC path, until when each peer (replica) said it has no room. A call is refused here
 * only while every peer heard from recently is in that window, so with several replicas one at capacity
 * never turns away calls another could serve.
 */
export class CapacityMemory {
  private readonly lastSeen = new Map<string, number>();
  private readonly busyUntil = new Map<string, Map<string, number>>();

  answered(path: string, peer: string, retryAfterMs: number | undefined): void {
    const now = Date.now();
    this.lastSeen.set(peer, now);
    // Only a refusal marks the peer; an answer to a call it took earlier (still finishing) says nothing of room now.
    if (!retryAfterMs || retryAfterMs <= 0) return;
    const until = now + Math.min(retryAfterMs, SHORT_CIRCUIT_MAX_MS);
    const busy = this.busyUntil.get(path);
    if (busy) busy.set(peer, until);
    else this.busyUntil.set(path, new Map([[peer, until]]));
  }

  /** The refusal a call of this path gets here now, if every recent peer refused one a moment ago. */
  refusal(path: string): PeerError | undefined {
    const busyMs = this.busyForMs(path);
    return busyMs === undefined ? undefined : capacityRefusal(busyMs);
  }

  /** How long until the first recent peer may have room again (ms), or undefined if one has room now. */
  busyForMs(path: string): number | undefined {
    const busy = this.busyUntil.get(path);
    if (!busy?.size) return undefined;
    const now = Date.now();
    let until = Number.POSITIVE_INFINITY;
    for (const [peer, seen] of this.lastSeen) {
      if (now - seen > PEER_SEEN_MS) {
        this.lastSeen.delete(peer);
        continue;
      }
      const busyTill = busy.get(peer) ?? 0;
      if (busyTill <= now) return undefined;
      until = Math.min(until, busyTill);
    }
    if (until === Number.POSITIVE_INFINITY) return undefined;
    return until - now;
  }
}

/** The caller's own refusal while its peer is at capacity (no stack: errors.ts, withoutStack). */
function capacityRefusal(retryAfterMs: number): PeerError {
  return withoutStack(() => new PeerError("SERVICE_UNAVAILABLE", grpc.status.UNAVAILABLE, undefined, "peer at capacity (refused by the caller)", retryAfterMs));
}

const capacity = new WeakMap<grpc.Client, CapacityMemory>();
function atCapacity(client: grpc.Client): CapacityMemory {
  let memory = capacity.get(client);
  if (!memory) {
    memory = new CapacityMemory();
    capacity.set(client, memory);
  }
  return memory;
}

function peerOf(call: grpc.ClientUnaryCall): string {
  try {
    return call.getPeer();
  } catch {
    return "unknown";
  }
}

/**
 * Maps a grpc-js error to the catalogue. A refusal of the caller itself (internal API access) becomes a
 * generic INTERNAL_SERVER_ERROR with the refusal as its cause: it is our deployment's fault, and its
 * code must not reach a browser.
 */
export function fromServiceError(error: grpc.ServiceError): PeerError {
  const code = String(error.metadata?.get(ERROR_CODE_KEY)[0] ?? "");
  if (isErrorCode(code) && INTERNAL_API_CODES.has(code)) return new PeerError("INTERNAL_SERVER_ERROR", error.code, undefined, error);
  if (isErrorCode(code)) return new PeerError(code, error.code, error.details || undefined, error, retryAfterOf(error.metadata), fieldsOf(error.metadata));
  if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.DEADLINE_EXCEEDED) {
    return new PeerError("SERVICE_UNAVAILABLE", error.code, undefined, error);
  }
  return new PeerError("INTERNAL_SERVER_ERROR", error.code, undefined, error);
}

/** The error's body fields, if its trailer holds an object of strings and nulls (anything else is dropped). */
function fieldsOf(metadata: grpc.Metadata | undefined): ErrorFields | undefined {
  const raw = metadata?.get(ERROR_FIELDS_KEY)[0];
  if (typeof raw !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    return Object.values(parsed).every((value) => value === null || typeof value === "string") ? (parsed as ErrorFields) : undefined;
  } catch {
    return undefined;
  }
}

/** The peer's retry hint (ms), if its trailer holds a sane one. */
function retryAfterOf(metadata: grpc.Metadata | undefined): number | undefined {
  const raw = metadata?.get(RETRY_AFTER_KEY)[0];
  if (raw === undefined) return undefined;
  const ms = Number(raw);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}
