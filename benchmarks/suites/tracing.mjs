// The tracing suite (@velox/otel): the same JSON route traced with OpenTelemetry on Velox
// (@velox/otel), on Node's http (@opentelemetry/instrumentation-http) and on Fastify
// (@opentelemetry/instrumentation-http + @fastify/otel), with Velox untraced as the baseline. All
// share one setup (servers/tracing/common.mjs): spans through a batch processor to an exporter
// that drops them, metrics aggregated but never collected. See benchmarks/README.md, "Suites".

const velox = { pkg: '@velox/otel', nodeArgs: ['--conditions=built'] };

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'tracing',
  title: 'Tracing (OpenTelemetry)',
  frameworks: [
    { id: 'velox-notrace', label: 'Velox, not traced', pkg: '@velox/core', nodeArgs: ['--conditions=built'] },
    { id: 'velox-otel', label: 'Velox + @velox/otel', ...velox },
    { id: 'node-http-otel', label: 'node:http + @opentelemetry/instrumentation-http', pkg: '@opentelemetry/instrumentation-http' },
    { id: 'fastify-otel', label: 'Fastify + instrumentation-http + @fastify/otel', pkg: '@fastify/otel' },
  ],
  scenarios: [
    {
      name: 'tracing',
      summary:
        'GET /users/:id answers `{"id":…,"name":"velox"}` as JSON, with a span per request (and, for Fastify, its plugin\'s route and handler spans) and the HTTP server metrics. One OpenTelemetry setup for all: AsyncLocalStorage context manager, W3C propagator, batch span processor to an exporter that drops the spans, a meter provider aggregating every measurement.',
      servers: {
        'velox-notrace': 'tracing/velox-notrace.mjs',
        'velox-otel': 'tracing/velox.mjs',
        'node-http-otel': 'tracing/node-http.mjs',
        'fastify-otel': 'tracing/fastify.mjs',
      },
      baseline: 'velox-notrace',
      request: { method: 'GET', path: '/users/42' },
      expect: { status: 200, json: { id: '42', name: 'velox' }, contentType: 'application/json' },
      extraChecks: [
        {
          request: { method: 'GET', path: '/users/abc' },
          expect: { status: 200, json: { id: 'abc', name: 'velox' }, contentType: 'application/json' },
        },
      ],
    },
  ],
  targets: [
    {
      label: 'Velox + @velox/otel ahead of node:http + @opentelemetry/instrumentation-http',
      a: ['tracing', 'velox-otel'],
      b: ['tracing', 'node-http-otel'],
      min: 1,
      strict: true,
    },
    {
      label: 'Velox + @velox/otel ahead of Fastify + instrumentation-http + @fastify/otel',
      a: ['tracing', 'velox-otel'],
      b: ['tracing', 'fastify-otel'],
      min: 1,
      strict: true,
    },
  ],
  references: [{ label: 'Velox + @velox/otel / Velox not traced', a: ['tracing', 'velox-otel'], b: ['tracing', 'velox-notrace'] }],
  probes: [],
};
