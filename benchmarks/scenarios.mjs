// The core suite's scenarios (HTTP core, router, validate), kept importable from here for
// instructions.mjs, lib/express-scenarios.mjs and the server files. They are defined in
// suites/core.mjs with the core suite's targets; other suites live in suites/*.mjs.

import { SCENARIOS } from './suites/core.mjs';

export { JSON_PAYLOAD, MIDDLEWARE_COUNT, ROUTE_COUNT, SCENARIOS } from './suites/core.mjs';

/** A core scenario by name (undefined if there is none). */
export function scenarioByName(name) {
  return SCENARIOS.find((s) => s.name === name);
}
