/**
 * Pattern helpers, used once per route at registration: which parameters a pattern has, and
 * whether a path-scoped middleware (`use('/prefix', mw)`) applies to a route always, never,
 * or only for some of the paths the route matches. The server uses them for `app.use(prefix)`,
 * and they are public so that a package adding its own scoped middlewares (`@velox/router`)
 * decides the same way; only the matcher a `Sometimes` route gets runs per request.
 */
import { invalidOption } from './errors.ts';
import type { Middleware } from './types.ts';

/**
 * One segment of a route pattern or a prefix: literal text, `:name`, `*` (a whole last segment
 * only), or '' (a trailing slash). `fold` marks a segment whose literal text compares
 * case-insensitively (written by a case-insensitive router); one pattern can mix both kinds
 * when it is made of the prefixes of several routers.
 *
 * @example
 * ```ts
 * import { pathSegments } from '@velox/core';
 *
 * pathSegments('/users/:id'); // [{ text: 'users', fold: false, lower: 'users' }, { text: ':id', … }]
 * ```
 */
export interface PathSegment {
  readonly text: string;
  /** Literal text compares case-insensitively (with `lower`). */
  readonly fold: boolean;
  /** `text.toLowerCase()`. */
  readonly lower: string;
}

/**
 * Splits a pattern or prefix into segments, without checking it further: `/` and '' give none,
 * `/a/` gives `a` and ''. A prefix is matched segment by segment, so drop its trailing slashes
 * first (see {@link normalizePrefix}). `fold` marks every segment case-insensitive.
 *
 * @throws VeloxError `VELOX_ERR_INVALID_OPTION` when `path` is not a string starting with `/` (or '').
 * @example
 * ```ts
 * import { pathSegments } from '@velox/core';
 *
 * const route = pathSegments('/Admin/:page', true); // from a caseSensitive: false router
 * route.map((s) => s.text); // ['Admin', ':page']
 * ```
 */
export function pathSegments(path: string, fold = false): PathSegment[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw invalidOption(`A path must be a string starting with "/", got ${JSON.stringify(path)}`);
  }
  if (path === '' || path === '/') return [];
  return path
    .slice(1)
    .split('/')
    .map((text) => ({ text, fold, lower: text.toLowerCase() }));
}

/**
 * Where a route stands against a middleware's prefix: the middleware never applies, always
 * applies, or applies only to some of the paths the route matches (a parameter or wildcard of
 * the route where the prefix has literal text), which a {@link prefixMatcher} then tells apart
 * per request.
 *
 * @example
 * ```ts
 * import { PrefixRelation, relateToPrefix } from '@velox/core';
 *
 * relateToPrefix('/admin/users', '/admin') === PrefixRelation.Always;
 * relateToPrefix('/:section/users', '/admin') === PrefixRelation.Sometimes;
 * relateToPrefix('/public', '/admin') === PrefixRelation.Never;
 * ```
 */
export const PrefixRelation = {
  Never: 0,
  Always: 1,
  /** The route matches some paths under the prefix and some outside it: check each request. */
  Sometimes: 2,
} as const;
/** One of the values of {@link PrefixRelation}. */
export type PrefixRelation = (typeof PrefixRelation)[keyof typeof PrefixRelation];

/** The segments of a pattern, or the segments given. */
function segmentsOf(path: string | readonly PathSegment[]): readonly PathSegment[] {
  return typeof path === 'string' ? pathSegments(path) : path;
}

/**
 * How the paths a route pattern matches relate to a prefix. A parameter of the prefix takes any
 * segment; a literal compares case-insensitively when either side has `fold`, so a guard never
 * misses a path its router treats as the same. Strings are split with {@link pathSegments}
 * (case-sensitive); pass the prefix without trailing slashes ({@link normalizePrefix}).
 * Runs at registration, never per request.
 *
 * @example
 * ```ts
 * import { pathSegments, PrefixRelation, relateToPrefix } from '@velox/core';
 *
 * const relation = relateToPrefix(pathSegments('/ADMIN/x', true), '/admin'); // PrefixRelation.Always
 * ```
 */
export function relateToPrefix(route: string | readonly PathSegment[], prefix: string | readonly PathSegment[]): PrefixRelation {
  const r = segmentsOf(route);
  const scope = segmentsOf(prefix);
  let relation: PrefixRelation = PrefixRelation.Always;
  for (let i = 0; i < scope.length; i++) {
    const segment = r[i];
    const s = scope[i]!;
    if (segment === undefined) return PrefixRelation.Never;
    if (segment.text === '*') return PrefixRelation.Sometimes;
    if (segment.text === '' && i === r.length - 1) return PrefixRelation.Never;
    if (s.text.startsWith(':')) continue;
    if (segment.text.startsWith(':')) relation = PrefixRelation.Sometimes;
    else if (segment.fold || s.fold ? segment.lower !== s.lower : segment.text !== s.text) return PrefixRelation.Never;
  }
  return relation;
}

/**
 * A test of a request path (`req.path`, as sent) against a prefix, for the routes that relate
 * `Sometimes` to it: true when the path lies under the prefix. A parameter of the prefix takes
 * any non-empty segment. Literal segments compare case-insensitively when the prefix's segment
 * has `fold`, or when the segment of `route` at that place does (past a wildcard of the route,
 * its last segment's rule holds): pass the route for that, or leave it out.
 * Built at registration; the function it returns is what runs per request, and it allocates
 * one string per segment of the prefix.
 *
 * @example
 * ```ts
 * import { normalizePrefix, prefixMatcher } from '@velox/core';
 *
 * const underAdmin = prefixMatcher(normalizePrefix('/admin/'));
 * underAdmin('/admin/users'); // true
 * underAdmin('/administrator'); // false
 * ```
 */
export function prefixMatcher(prefix: string | readonly PathSegment[], route?: readonly PathSegment[]): (path: string) => boolean {
  const scope = segmentsOf(prefix);
  const last = route ? route.length - 1 : -1;
  const parts = scope.map((s, i) => {
    const fold = s.fold || (route !== undefined && route[Math.min(i, last)]?.fold === true);
    return { param: s.text.startsWith(':'), fold, text: fold ? s.lower : s.text };
  });
  return (path) => {
    let start = 1;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (start > path.length) return false;
      let end = path.indexOf('/', start);
      if (end < 0) end = path.length;
      const part = path.slice(start, end);
      if (p.param) {
        if (part === '') return false;
      } else if ((p.fold ? part.toLowerCase() : part) !== p.text) return false;
      start = end + 1;
    }
    return true;
  };
}

/** Checks a route pattern and returns its parameter names, in order. */
export function paramNames(pattern: string): string[] {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) {
    throw invalidOption(`A route pattern must be a string starting with "/", got ${JSON.stringify(pattern)}`);
  }
  const names: string[] = [];
  const segments = pattern.split('/');
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.startsWith(':')) {
      const name = segment.slice(1);
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw invalidOption(`Invalid parameter name "${segment}" in ${pattern}`);
      if (names.includes(name)) throw invalidOption(`Parameter ":${name}" appears twice in ${pattern}`);
      names.push(name);
    } else if (segment.includes('*') && (segment !== '*' || i !== segments.length - 1)) {
      throw invalidOption(`A wildcard must be a whole last segment ("/files/*"), got ${pattern}`);
    }
  }
  return names;
}

/**
 * Checks and normalizes a mount or middleware prefix: a leading slash, no trailing slash, no
 * wildcard; `/` becomes ''. This is what `app.use(prefix, …)` does with its prefix.
 *
 * @throws VeloxError `VELOX_ERR_INVALID_OPTION` for anything else than a string starting with `/`, or one holding `*`.
 * @example
 * ```ts
 * import { normalizePrefix } from '@velox/core';
 *
 * normalizePrefix('/api/'); // '/api'
 * normalizePrefix('/'); // ''
 * ```
 */
export function normalizePrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
    throw invalidOption(`A prefix must be a string starting with "/", got ${JSON.stringify(prefix)}`);
  }
  if (prefix.includes('*')) throw invalidOption(`A prefix cannot hold a wildcard: ${prefix}`);
  return prefix.replace(/\/+$/, '');
}

/** Where core looks for the mark: a registry symbol, so that two copies of core agree. */
const kMetadataOnly = Symbol.for('velox.metadataOnly');

/**
 * Marks a middleware as metadata only: it describes a route (for a plugin that documents or
 * inspects routes) and does nothing at run time, so core leaves it out of every chain it builds.
 * It stays in the route's `handlers` (what `onRoute` hooks and `routeDefinitions()` see), and a
 * router keeps it in the routes it flattens, so plugins can read it; a request never runs it.
 * The function should call `next()` when something other than core's chains runs it. A route
 * needs one function that is not metadata only (its handler); `use()` refuses one, since a
 * server-wide middleware is in no route's `handlers`. Returns the function, marked.
 *
 * @example
 * ```ts
 * import { isMetadataOnly, markMetadataOnly } from '@velox/core';
 *
 * const notes = new WeakMap<Function, string>();
 * function note(text: string) {
 *   const marker = markMetadataOnly((req, res, next) => next());
 *   notes.set(marker, text);
 *   return marker;
 * }
 * app.get('/a', note('the a route'), (req, res) => res.send('a')); // runs the handler only
 * const text = app.routeDefinitions().map((r) => r.handlers.filter(isMetadataOnly).map((fn) => notes.get(fn)));
 * ```
 */
export function markMetadataOnly<F extends Middleware<any, any>>(fn: F): F {
  if (typeof fn !== 'function') throw invalidOption('markMetadataOnly() takes a middleware function');
  Object.defineProperty(fn, kMetadataOnly, { value: true });
  return fn;
}

/**
 * Whether a function was marked with {@link markMetadataOnly}: core leaves such functions out of
 * the chains it builds, at registration.
 *
 * @example
 * ```ts
 * import { isMetadataOnly } from '@velox/core';
 *
 * const described = app.routeDefinitions().filter((route) => route.handlers.some(isMetadataOnly));
 * ```
 */
export function isMetadataOnly(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[kMetadataOnly] === true;
}
