// The session suite (@velox/session): empty until its package's helper fills it in.
// See benchmarks/README.md, "Suites", for every field and a worked example.

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'session',
  title: '@velox/session',
  frameworks: [],
  scenarios: [],
  targets: [],
  references: [],
  probes: [],
};
