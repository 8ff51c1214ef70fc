// The express-mw suite (Express middleware in Velox): empty until its package's helper fills it in.
// See benchmarks/README.md, "Suites", for every field and a worked example.

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'express-mw',
  title: 'Express middleware in Velox',
  frameworks: [],
  scenarios: [],
  targets: [],
  references: [],
  probes: [],
};
