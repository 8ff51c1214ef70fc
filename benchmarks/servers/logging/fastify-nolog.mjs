// The same server as servers/logging/fastify.mjs without a logger: the logging suite's reference for
// what logging costs fastify.
process.env.BENCH_LOGGING = 'off';
await import('./fastify.mjs');
