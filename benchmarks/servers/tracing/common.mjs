// What every tracing server shares: one OpenTelemetry setup, as an application would have it
// (the AsyncLocalStorage context manager, W3C trace context, spans through a batch processor,
// metrics aggregated by a meter provider), with exporters that drop what they get: the figures
// are the cost of making spans and metrics, not of sending them anywhere.
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Spans exported so far, by name (printed on SIGUSR2, to check a server traces). */
const exported = new Map();
process.on('SIGUSR2', () => process.stderr.write(`SPANS ${JSON.stringify(Object.fromEntries(exported))}\n`));

/** A span exporter that counts and drops every batch. */
const dropSpans = {
  export(spans, done) {
    for (const span of spans) exported.set(span.name, (exported.get(span.name) ?? 0) + 1);
    done({ code: 0 });
  },
  async shutdown() {},
};

/** A metric reader nobody collects: the instruments still aggregate every measurement. */
class IdleReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

/** Installs the context manager and propagator, and registers `instrumentations` with the providers. */
export function setupTracing(instrumentations) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans, scheduledDelayMillis: 1000 })] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  registerInstrumentations({ instrumentations, tracerProvider, meterProvider });
}

/** The answer of GET /users/:id. */
export function user(id) {
  return { id, name: 'velox' };
}
