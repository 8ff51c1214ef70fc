// The multipart suite (@velox/multipart): empty until its package's helper fills it in.
// See benchmarks/README.md, "Suites", for every field and a worked example.

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'multipart',
  title: '@velox/multipart',
  frameworks: [],
  scenarios: [],
  targets: [],
  references: [],
  probes: [],
};
