// Vitest global setup shared by every package (vitest.shared.ts): writes the Node version the
// tests run on to .vitest/node.json beside the package's report, so scripts/test-summary.mjs can
// check that a pass meant for Node 22 really ran on Node 22.
import { mkdirSync, writeFileSync } from 'node:fs';

export default function recordNode() {
  mkdirSync('.vitest', { recursive: true });
  writeFileSync('.vitest/node.json', JSON.stringify({ version: process.version, abi: process.versions.modules }));
}
