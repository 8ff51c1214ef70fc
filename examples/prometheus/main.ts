// Velox request metrics for Prometheus: @velox/otel records the HTTP server metrics of every
// request, OpenTelemetry's Prometheus exporter turns them into Prometheus's text format, and the
// app serves that at GET /metrics for a Prometheus server to scrape.
// PORT and HOST come from the environment (default 3000 on 127.0.0.1).
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { Server } from '@velox/core';
import { VeloxInstrumentation } from '@velox/otel';

// The exporter is a metric reader; its own HTTP server is not started: /metrics is a Velox route.
const exporter = new PrometheusExporter({ preventServerStart: true });
const serializer = new PrometheusSerializer();
const meterProvider = new MeterProvider({ readers: [exporter] });
registerInstrumentations({
  meterProvider,
  // Prometheus's own scrapes are not counted as traffic.
  instrumentations: [new VeloxInstrumentation({ ignoreRequest: (req) => req.path === '/metrics' })],
});

const app = new Server();
app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
app.get('/fail', () => {
  throw new Error('this route always fails');
});
app.get('/metrics', async (req, res) => {
  const { resourceMetrics, errors } = await exporter.collect();
  for (const err of errors) app.logger?.error(err);
  res.set('content-type', 'text/plain; version=0.0.4; charset=utf-8').send(serializer.serialize(resourceMetrics));
});
app.addHook('onClose', () => meterProvider.shutdown());

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), exit 0.
app.closeOnSignals({ timeout: 5000 });

const host = process.env.HOST ?? '127.0.0.1';
const { port } = await app.listen(Number(process.env.PORT ?? 3000), host);
console.log(`Velox listening on http://${host}:${port} (metrics at /metrics)`);
