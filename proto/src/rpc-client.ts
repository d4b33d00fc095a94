/**
 * call(): a promise over a grpc-js unary client method. The caller passes its request context: the request
 * id travels in metadata, and the deadline is the sooner of the context's (what is left of the inbound call
 * that caused this one) and the default, so a nested call never outlives the call that caused it.
 *
 * A ServiceError becomes a PeerError carrying the catalogue code named in its x-error-code trailer; an
 * unreachable service or a spent deadline becomes SERVICE_UNAVAILABLE. A retry hint in the x-retry-after-ms
 * trailer becomes the PeerError's retryAfterMs. A peer that refused a call for capacity (CapacityMemory) is
 * then sent that RPC's calls one at a time, paced by its hint; a call that finds no opening waits up to
 * HOLD_MAX_MS for one and is otherwise refused by the caller itself. When the context's signal aborts
 * (whoever asked stopped waiting), the call is cancelled, or not made, and fails as SERVICE_UNAVAILABLE.
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
  const path = rpcPathOf(method);
  const signal = options.context?.signal;
  if (signal?.aborted) return Promise.reject(callerGone());
  const waiting = options.context?.admitted === path ? undefined : capacityWait(client, path, deadline, signal);
  if (!waiting) return send(client, method, request, metadata, deadline, path, options.hooks, signal);
  return waiting.then(() => send(client, method, request, metadata, deadline, path, options.hooks, signal));
}

/** The RPC's path ("/package.Service/Method") as grpc-js sets it on a client's method, else the method's name. */
export function rpcPathOf(method: (...args: never[]) => unknown): string {
  return (method as { path?: string }).path ?? method.name;
}

/**
 * Nothing (go now: the common case, without a promise) when a call of `path` may go to the client's peer;
 * else a promise that resolves once it may, or rejects with the caller's own refusal. The peer said it is
 * at capacity a moment ago and its next opening is taken (CapacityMemory): the call waits (holdFor says
 * why and how long), then goes if an opening has come and no other call took it, else is refused here.
 */
export function capacityWait(client: grpc.Client, path: string, deadline: number, signal: AbortSignal | undefined): Promise<void> | undefined {
  const memory = atCapacity(client);
  const hintMs = memory.admit(path);
  if (hintMs === undefined) return undefined;
  const holdMs = holdFor(deadline - Date.now());
  if (holdMs <= 0) return Promise.reject(capacityRefusal(hintMs));
  return hold(holdMs, signal).then(() => {
    const stillHintMs = memory.admit(path);
    if (stillHintMs !== undefined) throw capacityRefusal(stillHintMs);
  });
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
 * The longest a call waits for an opening at a peer that said it is at capacity (CapacityMemory): short
 * enough that a refusal beyond capacity answers within 100 ms, long enough that callers which retry every
 * 503 at once (a closed loop of clients, a retry storm) sleep most of the time instead of keeping the
 * caller's and the load's threads runnable on the cores the peer's hashing needs
 * (docs/adr/0025-sign-in-beyond-capacity.md).
 */
export const HOLD_MAX_MS = 90;

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
  const sentAt = Date.now();
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
        // Only a peer at capacity paces its callers: a hint on another refusal (one user's too many
        // requests) is that user's, passed on, and must not turn away everyone's calls of the method.
        atCapacity(client).answered(path, peer, peerError.code === "SERVICE_UNAVAILABLE" ? peerError.retryAfterMs : undefined, sentAt);
        reject(peerError);
      } else {
        atCapacity(client).answered(path, peer, "took", sentAt);
        resolve(response);
      }
    });
    signal?.addEventListener("abort", cancel, { once: true });
  });
}

/**
 * The most a peer's capacity hint spaces the calls sent to it: a long hint is followed for a small part
 * only, so a peer that frees up sooner than it estimated soon gets calls again.
 */
export const PACING_GAP_MAX_MS = 250;
/**
 * After a peer's last capacity refusal, the gap between its calls halves every this many ms, and pacing ends
 * once the gap is under PACING_GAP_MIN_MS. A peer whose queue drains at the pace its hints set is asked
 * more often until it refuses again; ending the pacing at once instead let every held call go together,
 * and all but a few came back refused.
 */
export const PACING_HALVES_EVERY_MS = 1_000;
export const PACING_GAP_MIN_MS = 1;
/** Peers heard from this recently count as the ones a call may reach (the replicas behind the address). */
const PEER_SEEN_MS = 10_000;

interface Pacing {
  /** When the peer's next call may go (its last refusal, or the last call let through, plus the gap). */
  openAt: number;
  /** The peer's hint at its last refusal, at most PACING_GAP_MAX_MS: the gap between calls then (ms). */
  gapMs: number;
  /** The hint as the peer gave it: what a call refused here is told (its Retry-After). */
  hintMs: number;
  refusedAt: number;
}

/**
 * Per client: for each RPC path, how each peer (replica) that refused a call for capacity is paced
 * (SERVICE_UNAVAILABLE with a retry hint: identity's hashing queue, a service whose database is out of
 * reach). After a refusal, until it takes a call sent after that refusal, the peer gets one call per hint:
 * its estimate of when a place frees, a gap that halves every PACING_HALVES_EVERY_MS without another
 * refusal until it is gone (pacingGapMs). Without the pacing, every call held past the end of a refusal's
 * window went to the peer at once, and all but one came back refused, each costing the peer's event loop
 * and ours the CPU its hashing needed. A call finds no opening only while every peer heard from recently
 * is paced and has none, so with several replicas one at capacity never turns away calls another could
 * serve.
 */
export class CapacityMemory {
  private readonly lastSeen = new Map<string, number>();
  private readonly paced = new Map<string, Map<string, Pacing>>();

  /**
   * What a peer's answer to a call sent at `sentAt` says of its room: a capacity refusal's hint (ms);
   * "took" when it served the call; undefined when it says nothing (another refusal, which may come before
   * the work that needs room; unreachable, out of time).
   */
  answered(path: string, peer: string, answer: number | "took" | undefined, sentAt: number): void {
    const now = Date.now();
    this.lastSeen.set(peer, now);
    const peers = this.paced.get(path);
    if (answer === "took") {
      // It took a call sent after its last refusal: it has room again (its database is back), and calls
      // go freely. A call sent before that refusal, queued there until now, says nothing of room now.
      const pacing = peers?.get(peer);
      if (pacing && sentAt > pacing.refusedAt) peers!.delete(peer);
      return;
    }
    if (answer === undefined || answer <= 0) return;
    const gapMs = Math.min(answer, PACING_GAP_MAX_MS);
    const pacing = { openAt: now + gapMs, gapMs, hintMs: answer, refusedAt: now };
    if (peers) peers.set(peer, pacing);
    else this.paced.set(path, new Map([[peer, pacing]]));
  }

  /**
   * Lets a call of this path go now (undefined), taking the opening it uses; or, when every recent peer is
   * paced and none has an opening now, gives the retry hint of a call refused here (ms): the soonest of the
   * peers' own, so it is told what the peer would have told it.
   */
  admit(path: string): number | undefined {
    const peers = this.paced.get(path);
    if (!peers?.size) return undefined;
    const now = Date.now();
    let hintMs = Number.POSITIVE_INFINITY;
    let opening: { pacing: Pacing; gapMs: number } | undefined;
    for (const [peer, seen] of this.lastSeen) {
      if (now - seen > PEER_SEEN_MS) {
        this.lastSeen.delete(peer);
        peers.delete(peer);
        continue;
      }
      const pacing = peers.get(peer);
      const gapMs = pacing ? pacingGapMs(pacing, now) : 0;
      // A recent peer that is not paced (or no longer) has room as far as anyone here knows.
      if (!pacing || gapMs < PACING_GAP_MIN_MS) {
        peers.delete(peer);
        return undefined;
      }
      if (pacing.openAt <= now) opening ??= { pacing, gapMs };
      else hintMs = Math.min(hintMs, pacing.hintMs);
    }
    if (opening) {
      opening.pacing.openAt = now + opening.gapMs;
      return undefined;
    }
    return hintMs === Number.POSITIVE_INFINITY ? undefined : hintMs;
  }
}

/** The gap between a paced peer's calls now: its last hint, halved for every PACING_HALVES_EVERY_MS since. */
function pacingGapMs(pacing: Pacing, now: number): number {
  return pacing.gapMs / 2 ** Math.floor((now - pacing.refusedAt) / PACING_HALVES_EVERY_MS);
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
