/**
 * The versions written into a new app's package.json: those of this release, read from
 * `versions.json`, which the build writes beside this module from the workspace's manifests
 * (`scripts/write-versions.mjs`).
 */
import { readFileSync } from 'node:fs';

/**
 * The versions create-velox writes into the apps it makes.
 *
 * @example
 * ```ts
 * import { type Versions, versions } from 'create-velox';
 * const { velox }: Versions = versions();
 * console.log(velox['@velox/router']);
 * ```
 */
export interface Versions {
  /** create-velox's own version. */
  createVelox: string;
  /** Each `@velox/` package by name: its version in this release (written as `^version`). */
  velox: Record<string, string>;
  /** The ranges of the third-party packages the templates use (zod, ws, typescript…). */
  thirdParty: Record<string, string>;
}

let cached: Versions | undefined;

/**
 * The versions of this release.
 *
 * @example
 * ```ts
 * import { versions } from 'create-velox';
 * versions().velox['@velox/core']; // '0.1.0'
 * ```
 */
export function versions(): Versions {
  if (cached) return cached;
  const file = new URL('./versions.json', import.meta.url);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`create-velox: ${file.pathname} is missing; it is written by the build (pnpm -F create-velox build)`, { cause: err });
  }
  cached = JSON.parse(text) as Versions;
  return cached;
}
