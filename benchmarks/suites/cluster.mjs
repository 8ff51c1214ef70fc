// The cluster suite (@velox/cluster): empty until its package's helper fills it in.
// See benchmarks/README.md, "Suites", for every field and a worked example.

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'cluster',
  title: '@velox/cluster',
  frameworks: [],
  scenarios: [],
  targets: [],
  references: [],
  probes: [],
};
