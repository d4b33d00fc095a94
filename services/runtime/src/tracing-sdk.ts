/**
 * The OpenTelemetry SDK and its OTLP/HTTP exporter, imported by tracing.ts only when an endpoint is
 * configured. Spans are batched and exported in the background; W3C trace context is the propagator, and
 * the current span follows async work through AsyncLocalStorage.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

export function startSdk(serviceName: string, tracesUrl: string): { shutdown(): Promise<void> } {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl }), scheduledDelayMillis: 1_000 })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      // Unregistered, so a later start (a test's next platform) can register again.
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
