// The frameworks of the core suite, in the order they appear in the tables. Other suites add
// their own rows in suites/*.mjs (`frameworks`); ids are unique across all of them.
// Which scenarios each one implements is not listed here: the runner asks the
// server file (`node servers/<file> --list`), so adding a scenario to a
// framework only means editing its server file.
//
//   id        name used in BENCH_FRAMEWORKS and in results.json
//   file      server under servers/ (the core suite's are in servers/core/)
//   nodeArgs  extra arguments for node (velox runs its built JavaScript: the `built` export
//             condition picks dist/, which `pnpm bench` builds first)
//   pkg       package whose version is reported
//   runtime   what runs the server file: 'node' (default, the Node running the runner) or 'bun'
//             (the binary of the pinned @oven/bun-linux-x64 package, x64 Linux only)
//   baseline  the framework every ratio is computed against
//   optIn     left out unless named in BENCH_FRAMEWORKS (instructions.mjs counts it by default)

export const FRAMEWORKS = [
  { id: 'uws', label: 'uWebSockets.js (raw)', file: 'core/raw-uws.mjs', pkg: 'uWebSockets.js', baseline: true },
  // The floor for the body scenarios' handler shape (see servers/core/raw-uws-async.mjs).
  { id: 'uws-async', label: 'uWebSockets.js (raw, async handler)', file: 'core/raw-uws-async.mjs', pkg: 'uWebSockets.js' },
  // uWS answering from C++ without JavaScript (DeclarativeResponse): ping and query only.
  { id: 'uws-declarative', label: 'uWebSockets.js (DeclarativeResponse)', file: 'core/raw-uws-declarative.mjs', pkg: 'uWebSockets.js', optIn: true },
  { id: 'velox', label: 'Velox', file: 'core/velox.mjs', pkg: '@velox/core', nodeArgs: ['--conditions=built'] },
  // Velox answering the nested and validated scenarios with a flat, unvalidated route: the
  // baseline of the router targets, measured in the same slices as Velox (no other scenario).
  { id: 'velox-plain', label: 'Velox, the same route flat and unvalidated', file: 'core/velox-plain.mjs', pkg: '@velox/core', nodeArgs: ['--conditions=built'] },
  // Velox with @velox/openapi registered and describeRoute() on its routes (ping, query, body):
  // issue 42's "nothing per request", counted against `velox` by instructions.mjs.
  { id: 'velox-openapi', label: 'Velox + @velox/openapi', file: 'core/velox-openapi.mjs', pkg: '@velox/openapi', nodeArgs: ['--conditions=built'], optIn: true },
  { id: 'hyper-express', label: 'hyper-express', file: 'core/hyper-express.mjs', pkg: 'hyper-express' },
  { id: 'ultimate-express', label: 'ultimate-express', file: 'core/ultimate-express.mjs', pkg: 'ultimate-express' },
  { id: 'fastify', label: 'Fastify', file: 'core/fastify.mjs', pkg: 'fastify' },
  { id: 'express', label: 'Express', file: 'core/express.mjs', pkg: 'express' },
  // Bun's own server on Bun, not Node: what many would pick instead of Node for speed. ping, query, body.
  { id: 'bun', label: 'Bun (Bun.serve)', file: 'core/bun.mjs', pkg: '@oven/bun-linux-x64', runtime: 'bun' },
];

/** Other spellings accepted in BENCH_FRAMEWORKS / INSTR_FRAMEWORKS. */
export const ALIASES = { declarative: 'uws-declarative', 'raw-uws': 'uws', raw: 'uws', 'raw-uws-async': 'uws-async', hyper: 'hyper-express', ultimate: 'ultimate-express' };

export function frameworkById(id) {
  const key = ALIASES[id] ?? id;
  return FRAMEWORKS.find((f) => f.id === key);
}
