// The logging suite (@velox/core's request log): the same JSON route on Velox with a pino logger
// (`new Server({ logger })`) and on Fastify with its built-in pino logging, both writing to the
// same asynchronous pino 10 destination (BENCH_LOG_FILE, default /dev/null), and each without a
// logger for reference. See benchmarks/README.md, "Suites", for every field.

const velox = { pkg: '@velox/core', nodeArgs: ['--conditions=built'] };

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'logging',
  title: 'Request logging (pino)',
  frameworks: [
    { id: 'velox-nolog', label: 'Velox, no logger', ...velox },
    { id: 'velox-pino', label: 'Velox + pino request log', ...velox },
    { id: 'fastify-nolog', label: 'Fastify, no logger', pkg: 'fastify' },
    { id: 'fastify-pino', label: 'Fastify + built-in pino logging', pkg: 'fastify' },
  ],
  scenarios: [
    {
      name: 'logging',
      summary:
        'GET /users/:id answers `{"id":…,"name":"velox"}` as JSON. With a logger, Velox writes one pino line per finished request (method, url, route, status, bytes, duration, request id, request headers with authorization and cookie redacted); Fastify writes its default two (`incoming request`, `request completed`). Both loggers are the same pino 10 instance configuration, writing asynchronously to /dev/null.',
      servers: {
        'velox-nolog': 'logging/velox-nolog.mjs',
        'velox-pino': 'logging/velox.mjs',
        'fastify-nolog': 'logging/fastify-nolog.mjs',
        'fastify-pino': 'logging/fastify.mjs',
      },
      baseline: 'velox-nolog',
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
      label: 'Velox + pino request log ahead of Fastify + built-in pino logging',
      a: ['logging', 'velox-pino'],
      b: ['logging', 'fastify-pino'],
      min: 1,
      strict: true,
    },
  ],
  references: [
    { label: 'Velox + pino request log / Velox without a logger', a: ['logging', 'velox-pino'], b: ['logging', 'velox-nolog'] },
    { label: 'Fastify + built-in pino logging / Fastify without a logger', a: ['logging', 'fastify-pino'], b: ['logging', 'fastify-nolog'] },
  ],
  probes: [],
};
