/**
 * Pattern helpers, used once per route at registration: which parameters a pattern has, and
 * whether a path-scoped middleware (`use('/prefix', mw)`) applies to a route always, never,
 * or only for some of the paths the route matches.
 */
import { invalidOption } from './errors.ts';

/** Where a route stands against a middleware's prefix. */
export const enum Relation {
  Never = 0,
  Always = 1,
  /** The route matches some paths under the prefix and some outside: check each request. */
  Sometimes = 2,
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

/** Normalizes a mount prefix: leading slash, no trailing slash; `/` becomes ''. */
export function normalizePrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
    throw invalidOption(`A prefix must be a string starting with "/", got ${JSON.stringify(prefix)}`);
  }
  if (prefix.includes('*')) throw invalidOption(`A prefix cannot hold a wildcard: ${prefix}`);
  return prefix.replace(/\/+$/, '');
}

/** How a route pattern relates to a prefix (both already checked). */
export function relate(pattern: string, prefix: string): Relation {
  if (prefix === '') return Relation.Always;
  const route = pattern.split('/');
  const scope = prefix.split('/');
  let relation = Relation.Always;
  for (let i = 1; i < scope.length; i++) {
    const r = route[i];
    const s = scope[i]!;
    if (r === undefined || (r === '' && i === route.length - 1)) return Relation.Never;
    if (r === '*') return Relation.Sometimes;
    if (s.startsWith(':')) continue;
    if (r.startsWith(':')) relation = Relation.Sometimes;
    else if (r !== s) return Relation.Never;
  }
  return relation;
}

/** Tests a concrete path against a prefix, for routes that relate `Sometimes`. */
export function prefixMatcher(prefix: string): (path: string) => boolean {
  const scope = prefix.split('/').slice(1);
  return (path) => {
    const parts = path.split('/');
    for (let i = 0; i < scope.length; i++) {
      const part = parts[i + 1];
      if (part === undefined) return false;
      const s = scope[i]!;
      if (!s.startsWith(':') && s !== part) return false;
      if (s.startsWith(':') && part === '') return false;
    }
    return true;
  };
}
