/**
 * The OpenTelemetry setup of these tests, as OpenTelemetry's own instrumentation tests have it:
 * an in-memory span exporter behind a simple span processor, a metric reader collected on demand,
 * the AsyncLocalStorage context manager and the W3C propagators, registered globally once.
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { closeAfter, later } from '@velox/test-utils';
import { Server } from '@velox/core';
import { VeloxInstrumentation, type VeloxInstrumentationConfig } from '../src/index.ts';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));

/** A metric reader that collects when asked. */
export class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Telemetry {
  instrumentation: VeloxInstrumentation;
  exporter: InMemorySpanExporter;
  tracerProvider: TracerProvider;
  reader: TestReader;
  /** The finished spans so far. */
  spans(): ReadableSpan[];
  /** The metrics collected now. */
  metrics(): Promise<ResourceMetrics>;
}

/** Registers a VeloxInstrumentation (and any others) with fresh providers; unregistered after the test. */
export function telemetry(config: VeloxInstrumentationConfig = {}, others: Parameters<typeof registerInstrumentations>[0]['instrumentations'] = []): Telemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const instrumentation = new VeloxInstrumentation(config);
  const unregister = registerInstrumentations({ instrumentations: [instrumentation, ...(others ?? [])], tracerProvider, meterProvider });
  later(async () => {
    unregister();
    await meterProvider.shutdown();
    await tracerProvider.shutdown();
  });
  return {
    instrumentation,
    exporter,
    tracerProvider,
    reader,
    spans: () => exporter.getFinishedSpans(),
    metrics: async () => (await reader.collect()).resourceMetrics,
  };
}

/** A Velox server closed after the test, logging off. */
export function server(): Server {
  return closeAfter(new Server({ logger: false }), { timeout: 1000 });
}

/** The data points of one metric, by name. */
export function points(metrics: ResourceMetrics, name: string): Array<{ attributes: Record<string, unknown>; value: any }> {
  for (const scope of metrics.scopeMetrics) {
    for (const metric of scope.metrics) if (metric.descriptor.name === name) return metric.dataPoints as never;
  }
  return [];
}
