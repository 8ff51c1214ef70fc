/**
 * Pattern helpers, used when routes are registered and mounted (never per request, except the
 * case-folding lookup of a catch-all route). Which prefixes a route lies under, and the
 * per-request prefix check, are core's (`relateToPrefix`, `prefixMatcher`): the server decides
 * `app.use('/prefix', mw)` with the same code.
 *
 * A full pattern is kept as a list of core's `PathSegment`s, each remembering whether the router
 * that wrote it is case-insensitive, since one path can hold segments from several nested routers.
 */
import { type PathSegment, pathSegments } from '@velox/core';
import { RouterErrorCodes, routerError } from './errors.ts';

/** One segment of a pattern: literal text, `:name`, `*` (last only), or '' (a trailing slash). */
export type Segment = PathSegment;

/** What a segment is; sorts literal before parameter before wildcard. */
const Kind = { Literal: 0, Param: 1, Wildcard: 2 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

function kind(segment: Segment): Kind {
  if (segment.text.startsWith(':')) return Kind.Param;
  return segment.text === '*' ? Kind.Wildcard : Kind.Literal;
}

const PARAM = /^:[A-Za-z_$][\w$]*$/;

/** Checks a route pattern (`/`, `/a/:b`, `/files/*`, `/a/`) and splits it; `/` gives no segment. */
export function parsePattern(pattern: unknown, fold: boolean): Segment[] {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) {
    throw invalid(`A route pattern must be a string starting with "/", such as "/users/:id"; got ${JSON.stringify(pattern)}`);
  }
  if (pattern === '/') return [];
  const texts = pattern.slice(1).split('/');
  const seen = new Set<string>();
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    const last = i === texts.length - 1;
    if (text === '' && !last) throw invalid(`Empty segment ("//") in the pattern ${pattern}`);
    if (text.startsWith(':')) {
      if (!PARAM.test(text)) throw invalid(`Invalid parameter "${text}" in ${pattern}: use letters, digits, _ or $ after ":"`);
      if (seen.has(text)) throw invalid(`Parameter "${text}" appears twice in ${pattern}`);
      seen.add(text);
    } else if (text.includes('*') && (text !== '*' || !last)) {
      throw invalid(`A wildcard must be the whole last segment, as in "/files/*"; got ${pattern}`);
    }
  }
  return pathSegments(pattern, fold);
}

/** Checks a mount or middleware prefix and splits it; `/` and '' give no segment. Trailing slashes are dropped. */
export function parsePrefix(prefix: unknown, fold: boolean): Segment[] {
  if (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/'))) {
    throw invalid(`A prefix must be a string starting with "/", such as "/users"; got ${JSON.stringify(prefix)}`);
  }
  if (prefix.includes('*')) throw invalid(`A prefix cannot hold a wildcard: ${prefix}`);
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return [];
  return parsePattern(trimmed, fold);
}

/** The uWS pattern of a list of segments. */
export function toPath(segments: readonly Segment[]): string {
  if (segments.length === 0) return '/';
  let path = '';
  for (const s of segments) path += `/${s.text}`;
  return path;
}

/** True when the pattern ends in a trailing slash (`/a/`). */
export function hasTrailingSlash(segments: readonly Segment[]): boolean {
  return segments.length > 0 && segments[segments.length - 1]!.text === '';
}

/** True when the pattern ends in `/*`. */
export function hasWildcard(segments: readonly Segment[]): boolean {
  return segments.length > 0 && segments[segments.length - 1]!.text === '*';
}

/**
 * The key two patterns of one router collide on: parameter names don't count (uWS keeps only
 * the first of `/a/:x` and `/a/:y`), nor a trailing slash when `strict` is off, nor the case of
 * literal segments when the router is case-insensitive.
 */
export function routeKey(method: string, segments: readonly Segment[], strict: boolean): string {
  let key = `${method} `;
  const end = !strict && hasTrailingSlash(segments) ? segments.length - 1 : segments.length;
  for (let i = 0; i < end; i++) {
    const s = segments[i]!;
    key += `/${kind(s) === Kind.Param ? ':' : s.fold ? s.lower : s.text}`;
  }
  return key === `${method} ` ? `${method} /` : key;
}

/**
 * A route reachable through case-folding: its segments, and what sorts it (literal segments
 * before parameters before a wildcard, position by position, so `/users/me` wins over `/users/:id`).
 */
export interface FoldEntry {
  method: string;
  segments: readonly Segment[];
  rank: readonly Kind[];
}

/** True when some literal segment of the pattern compares case-insensitively. */
export function needsFolding(segments: readonly Segment[]): boolean {
  for (const s of segments) if (s.fold && kind(s) === Kind.Literal && s.text !== '') return true;
  return false;
}

/** A table of case-folded routes under one catch-all, kept in match order. */
export class FoldTable {
  readonly entries: FoldEntry[] = [];

  add(method: string, segments: readonly Segment[]): void {
    const entry: FoldEntry = { method, segments, rank: segments.map(kind) };
    let i = this.entries.length;
    while (i > 0 && compareRank(entry.rank, this.entries[i - 1]!.rank) < 0) i--;
    this.entries.splice(i, 0, entry);
  }

  /**
   * The registered spelling of a path that differs from a route only in the case of literal
   * segments, or undefined. Parameters and what a wildcard matched are kept as sent.
   */
  canonical(method: string, path: string): string | undefined {
    if (this.entries.length === 0) return undefined;
    const parts = path.split('/');
    for (const entry of this.entries) {
      if (entry.method !== method && entry.method !== 'ANY' && !(method === 'HEAD' && entry.method === 'GET')) continue;
      const target = rewrite(entry, parts);
      if (target !== undefined && target !== path) return target;
    }
    return undefined;
  }
}

function compareRank(a: readonly Kind[], b: readonly Kind[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function rewrite(entry: FoldEntry, parts: string[]): string | undefined {
  const segments = entry.segments;
  // parts[0] is the '' before the leading slash.
  let out = '';
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const part = parts[i + 1];
    if (part === undefined) return undefined;
    const k = entry.rank[i]!;
    if (k === Kind.Wildcard) return `${out}/${parts.slice(i + 1).join('/')}`;
    if (k === Kind.Param) {
      if (part === '') return undefined;
      out += `/${part}`;
    } else if (s.fold ? part.toLowerCase() === s.lower : part === s.text) {
      out += `/${s.text}`;
    } else return undefined;
  }
  if (parts.length !== segments.length + 1) return undefined;
  return out === '' ? '/' : out;
}

function invalid(message: string) {
  return routerError(RouterErrorCodes.INVALID_OPTION, message);
}
