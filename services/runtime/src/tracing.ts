/**
 * Traces across the gateway and every gRPC hop (OpenTelemetry, W3C traceparent in gRPC metadata).
 *
 * This module needs only @opentelemetry/api, which is a no-op until an SDK registers: without
 * OTEL_EXPORTER_OTLP_ENDPOINT every span here is a non-recording one, nothing is propagated, and the SDK
 * and exporter (tracing-sdk.ts) are never imported, so a process that does not trace pays no memory for it.
 */
import type * as grpc from "@grpc/grpc-js";
import { context, type Context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";

const tracer = () => trace.getTracer("auth-platform");

let running: { shutdown(): Promise<void> } | undefined;

/** Whether this process exports traces (an SDK was started). */
export function tracingActive(): boolean {
  return running !== undefined;
}

export interface TracingOptions {
  /** service.name of the spans. */
  serviceName: string;
  /** OTLP/HTTP base URL (the exporter posts to <endpoint>/v1/traces); default OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint?: string;
}

/**
 * Starts exporting traces when an endpoint is configured (the options', or OTEL_EXPORTER_OTLP_ENDPOINT /
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); otherwise does nothing and loads nothing.
 */
export async function startTracing(options: TracingOptions, env: Record<string, string | undefined> = process.env): Promise<void> {
  const endpoint = options.endpoint ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || running || env.OTEL_SDK_DISABLED === "true") return;
  const { startSdk } = await import("./tracing-sdk.js");
  const tracesUrl = options.endpoint === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? endpoint : `${endpoint.replace(/\/+$/, "")}/v1/traces`;
  running = startSdk(options.serviceName, tracesUrl);
}

/** Flushes the spans not yet exported and stops exporting (on shutdown). */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown();
}

const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get: (carrier, key) => {
    const values = carrier.get(key);
    return values.length > 0 ? String(values[0]) : undefined;
  },
};
const metadataSetter: TextMapSetter<grpc.Metadata> = { set: (carrier, key, value) => carrier.set(key, value) };

const rpcAttributes = (path: string) => {
  const [, service = "", method = path] = /^\/?([^/]*)\/(.*)$/.exec(path) ?? [];
  return { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method };
};

/**
 * Runs an inbound RPC's handler in a SERVER span whose parent is the caller's span, read from the call's
 * metadata (never from whatever context the connection happened to be opened in).
 */
export function inServerSpan<T>(path: string, metadata: grpc.Metadata, fn: () => Promise<T>): Promise<T> {
  if (!running) return fn();
  const parent = propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  const span = tracer().startSpan(path.replace(/^\//, ""), { kind: SpanKind.SERVER, attributes: rpcAttributes(path) }, parent);
  return context.with(trace.setSpan(parent, span), fn).then(
    (result) => {
      span.setAttribute("rpc.grpc.status_code", 0);
      span.end();
      return result;
    },
    (error: unknown) => {
      endWithError(span, error);
      throw error;
    },
  );
}

function endWithError(span: Span, error: unknown): void {
  const e = error as { code?: unknown; grpcStatus?: number; http?: number };
  if (typeof e?.code === "string") span.setAttribute("auth.error_code", e.code);
  if (typeof e?.grpcStatus === "number") span.setAttribute("rpc.grpc.status_code", e.grpcStatus);
  // A catalogue answer to the caller's own mistake (a wrong password) is not the server's error.
  if (!(typeof e?.http === "number" && e.http < 500)) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * Starts the CLIENT span of an outbound RPC, child of the current span, and writes its traceparent into
 * the call's metadata. Returns what ends it with the call's gRPC status.
 */
export function startClientSpan(path: string, metadata: grpc.Metadata): (grpcCode: number) => void {
  if (!running) return () => undefined;
  const span = tracer().startSpan(path.replace(/^\//, ""), { kind: SpanKind.CLIENT, attributes: rpcAttributes(path) });
  propagation.inject(trace.setSpan(context.active(), span), metadata, metadataSetter);
  return (grpcCode) => {
    span.setAttribute("rpc.grpc.status_code", grpcCode);
    if (grpcCode !== 0) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
}

/** An inbound HTTP request's SERVER span (the gateway), child of a traceparent header if it has one. */
export interface HttpSpan {
  /** The trace id, which is the request id; undefined when tracing is off. */
  traceId?: string;
  /** Runs the rest of the request's chain with the span current. */
  run<T>(fn: () => T): T;
  end(route: string, status: number): void;
}

/** The span of every request while tracing is off: one object, not one per request. */
const NO_HTTP_SPAN: HttpSpan = { run: (fn) => fn(), end: () => undefined };

export function startHttpSpan(method: string, headers: Record<string, string | string[] | undefined>): HttpSpan {
  if (!running) return NO_HTTP_SPAN;
  const parent: Context = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer().startSpan(`${method}`, { kind: SpanKind.SERVER, attributes: { "http.request.method": method } }, parent);
  const active = trace.setSpan(parent, span);
  return {
    traceId: span.spanContext().traceId,
    run: (fn) => context.with(active, fn),
    end(route, status) {
      span.updateName(`${method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
