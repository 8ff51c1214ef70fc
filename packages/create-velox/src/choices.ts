/**
 * The Velox packages a new app can start with, in the order they are offered (and applied).
 */

/**
 * The short names `--packages` takes.
 *
 * @example
 * ```ts
 * import type { PackageName } from 'create-velox';
 * const api: PackageName[] = ['router', 'validate', 'openapi'];
 * ```
 */
export type PackageName =
  | 'router'
  | 'validate'
  | 'openapi'
  | 'session'
  | 'redis'
  | 'multipart'
  | 'static'
  | 'ws'
  | 'cors'
  | 'security-headers'
  | 'rate-limit'
  | 'compress';

/**
 * One package a new app can start with.
 *
 * @example
 * ```ts
 * import { type PackageChoice, packageChoices } from 'create-velox';
 * const openapi: PackageChoice | undefined = packageChoices.find((c) => c.name === 'openapi'); // requires ['validate']
 * ```
 */
export interface PackageChoice {
  /** The short name `--packages` takes. */
  name: PackageName;
  /** The npm package. */
  package: `@velox/${PackageName}`;
  /** What the generated app does with it, one line. */
  description: string;
  /** Other choices it cannot work without; they are added with it. */
  requires: PackageName[];
}

/**
 * Every package a new app can start with, in the order `--help` and the question list them.
 * `@velox/core` is always there. Left out on purpose: `@velox/express` (for Express middlewares
 * an app brings along, not for a new one), `@velox/otel` (it needs an OpenTelemetry SDK and an
 * exporter for your backend, choices a template cannot make), `@velox/cluster` and
 * `@velox/fetch`.
 *
 * @example
 * ```ts
 * import { packageChoices } from 'create-velox';
 * for (const choice of packageChoices) console.log(choice.name, '-', choice.description);
 * ```
 */
export const packageChoices: readonly PackageChoice[] = [
  { name: 'router', package: '@velox/router', description: 'the /api routes on a Router mounted at /api', requires: [] },
  { name: 'validate', package: '@velox/validate', description: 'route params checked with a zod schema (400 with every issue)', requires: [] },
  { name: 'openapi', package: '@velox/openapi', description: 'an OpenAPI document at /openapi.json and its docs page at /docs (adds validate)', requires: ['validate'] },
  { name: 'session', package: '@velox/session', description: 'a cookie session: GET /api/visits counts your visits', requires: [] },
  { name: 'redis', package: '@velox/redis', description: 'a Redis connection (REDIS_URL): GET /api/hits counts in Redis', requires: [] },
  { name: 'multipart', package: '@velox/multipart', description: 'POST /api/upload reads multipart/form-data uploads as streams', requires: [] },
  { name: 'static', package: '@velox/static', description: 'the files of public/ served at / (index.html)', requires: [] },
  { name: 'ws', package: '@velox/ws', description: 'a WebSocket echo at /ws', requires: [] },
  { name: 'cors', package: '@velox/cors', description: 'CORS for one front end (CORS_ORIGIN, default http://localhost:5173)', requires: [] },
  { name: 'security-headers', package: '@velox/security-headers', description: "helmet's security headers on every answer", requires: [] },
  { name: 'rate-limit', package: '@velox/rate-limit', description: '100 requests a minute per client, RateLimit headers', requires: [] },
  { name: 'compress', package: '@velox/compress', description: 'br, zstd, gzip or deflate for answers over 1 KiB', requires: [] },
];

const byName = new Map<string, PackageChoice>(packageChoices.map((c) => [c.name, c]));

/** @internal The choice of this short name (an `@velox/` prefix is accepted), or undefined. */
export function choiceOf(name: string): PackageChoice | undefined {
  return byName.get(name.startsWith('@velox/') ? name.slice('@velox/'.length) : name);
}

/**
 * @internal The choices named, with what they require, in the order of `packageChoices`, each once.
 * Unknown names are the caller's to refuse first.
 */
export function withRequirements(names: readonly PackageName[]): { packages: PackageName[]; added: PackageName[] } {
  const wanted = new Set(names);
  const added: PackageName[] = [];
  for (const name of names) {
    for (const required of byName.get(name)?.requires ?? []) {
      if (!wanted.has(required)) {
        wanted.add(required);
        added.push(required);
      }
    }
  }
  return { packages: packageChoices.map((c) => c.name).filter((n) => wanted.has(n)), added };
}
