// The same server as servers/logging/velox.mjs without a logger: the logging suite's reference for
// what logging costs velox.
process.env.BENCH_LOGGING = 'off';
await import('./velox.mjs');
