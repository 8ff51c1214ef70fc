/**
 * Content-Security-Policy: helmet 8's directives and checks, turned into the header's text once
 * per configuration. A policy with a nonce is kept as the text around the nonce (one
 * concatenation per request); one with directive functions as a list of pieces, joined per
 * request.
 */
import type { Request, Response } from '@velox/core';
import { invalidDirective, invalidOption } from './errors.ts';

/**
 * A directive value computed per request, as helmet allows: `(req, res) => string`, the string one
 * source expression (quoted keywords in quotes: `"'self'"`). A function makes the policy's text
 * be built per request; without one it is built once.
 *
 * @example
 * ```ts
 * const cdn: CspDirectiveFunction = (req) => (req.hostname.endsWith('.eu') ? 'https://cdn.eu' : 'https://cdn.com');
 * app.use(securityHeaders({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", cdn] } } }));
 * ```
 */
export type CspDirectiveFunction = (req: Request<unknown, unknown>, res: Response) => string;

/**
 * One source expression of a directive: a string (`"'self'"`, `'https:'`, `'data:'`…) or a
 * function of the request that returns one.
 *
 * @example
 * ```ts
 * const sources: CspDirectiveValue[] = ["'self'", 'https://cdn.example.com'];
 * ```
 */
export type CspDirectiveValue = string | CspDirectiveFunction;

/**
 * Value of `dangerouslyDisableDefaultSrc`: given as the value of `default-src`, it sends a policy
 * without `default-src` (which helmet otherwise refuses).
 *
 * @example
 * ```ts
 * import { dangerouslyDisableDefaultSrc, securityHeaders } from '@velox/security-headers';
 * app.use(securityHeaders({ contentSecurityPolicy: { directives: { defaultSrc: dangerouslyDisableDefaultSrc } } }));
 * ```
 */
export const dangerouslyDisableDefaultSrc: unique symbol = Symbol('dangerouslyDisableDefaultSrc');

/**
 * CSP directives by name, in kebab-case (`'script-src'`) or camelCase (`scriptSrc`): a list (an
 * array, a Set, any iterable) of source expressions, a single string, `null` to drop a default
 * directive, or {@link dangerouslyDisableDefaultSrc} for `default-src`.
 *
 * @example
 * ```ts
 * const directives: CspDirectives = { scriptSrc: ["'self'", 'https://cdn.example.com'], upgradeInsecureRequests: null };
 * ```
 */
export type CspDirectives = Record<string, null | string | Iterable<CspDirectiveValue> | typeof dangerouslyDisableDefaultSrc>;

/**
 * Options of the Content-Security-Policy header (helmet's): `directives` merged over helmet's
 * defaults unless `useDefaults: false`; `reportOnly` sends `Content-Security-Policy-Report-Only`.
 *
 * @example
 * ```ts
 * const csp: ContentSecurityPolicyOptions = { useDefaults: true, directives: { imgSrc: ["'self'", 'https:'] }, reportOnly: false };
 * ```
 */
export type ContentSecurityPolicyOptions = {
  /** Send `Content-Security-Policy-Report-Only` instead of `Content-Security-Policy`. Default: `false`. */
  reportOnly?: boolean;
} & (
  | {
      /** Start from helmet's default directives (see {@link getDefaultDirectives}). Default: `true`. */
      useDefaults?: true;
      /** Directives added to the defaults, or replacing them by name (`null` drops one). */
      directives?: CspDirectives;
    }
  | {
      useDefaults: false;
      /** The whole policy; it needs a `default-src` (or {@link dangerouslyDisableDefaultSrc}). */
      directives: CspDirectives;
    }
);

/**
 * helmet 8's default directives, as a new object each call (change it freely).
 *
 * @example
 * ```ts
 * import { getDefaultDirectives, securityHeaders } from '@velox/security-headers';
 * const { 'upgrade-insecure-requests': _, ...directives } = getDefaultDirectives();
 * app.use(securityHeaders({ contentSecurityPolicy: { useDefaults: false, directives } }));
 * ```
 */
export function getDefaultDirectives(): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'font-src': ["'self'", 'https:', 'data:'],
    'form-action': ["'self'"],
    'frame-ancestors': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'", 'https:', "'unsafe-inline'"],
    'upgrade-insecure-requests': [],
  };
}

/** @internal Stands for the request's nonce among a directive's entries. */
const NONCE: unique symbol = Symbol('nonce');
type Entry = string | CspDirectiveFunction | typeof NONCE;

/**
 * @internal The policy, ready for requests: its header name (lower-case) and either its whole text
 * (`text`), the text around the nonce (`around`), or directives with functions (`dynamic`).
 */
export interface CspPlan {
  name: string;
  /** The header's text when it does not change per request; else undefined. */
  text: string | undefined;
  /** With a nonce and no function: the text before, between and after the nonce's places (two or three pieces). */
  around: readonly string[] | undefined;
  /** With a function: each directive's name and entries. */
  dynamic: ReadonlyArray<readonly [string, readonly Entry[]]> | undefined;
}

const OPTION_KEYS = new Set(['directives', 'useDefaults', 'reportOnly']);
const NAME = /^[a-z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const SHOULD_BE_QUOTED = new Set([
  'none',
  'self',
  'strict-dynamic',
  'report-sample',
  'inline-speculation-rules',
  'unsafe-inline',
  'unsafe-eval',
  'unsafe-hashes',
  'wasm-unsafe-eval',
]);

/** True when the text holds a control character (CR, LF, NUL…; tab is allowed, as in any header). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}

/** What is wrong with one source expression, or undefined (helmet's checks, and no control character). */
function entryProblem(entry: string): string | undefined {
  if (/[;,]/.test(entry)) return `${JSON.stringify(entry)} holds ";" or ",", which would end the directive or the policy: give each source as its own string`;
  if (hasControl(entry)) return `${JSON.stringify(entry)} holds a control character (a newline?), which cannot go in a header`;
  if (SHOULD_BE_QUOTED.has(entry) || /^(?:nonce|sha256|sha384|sha512)-/.test(entry)) {
    return `${JSON.stringify(entry)} should be quoted: write "'${entry}'"`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** A directive's entries, checked: an array of strings and functions. */
function entriesOf(name: string, raw: unknown): Entry[] {
  let list: unknown[];
  if (typeof raw === 'string') list = [raw];
  else if (raw !== null && typeof raw === 'object' && typeof (raw as Iterable<unknown>)[Symbol.iterator] === 'function') list = Array.from(raw as Iterable<unknown>);
  else {
    throw invalidOption(
      `contentSecurityPolicy.directives[${JSON.stringify(name)}] must be a list of sources such as ["'self'", 'https://cdn.example.com'], ` +
        `a single string, or null to drop the directive; got ${describe(raw)}`,
    );
  }
  for (const entry of list) {
    if (typeof entry === 'function') continue;
    if (typeof entry !== 'string') {
      throw invalidOption(
        `contentSecurityPolicy.directives[${JSON.stringify(name)}] holds ${describe(entry)}: each source must be a string (such as "'self'") or a function (req, res) => string`,
      );
    }
    const problem = entryProblem(entry);
    if (problem !== undefined) throw invalidOption(`contentSecurityPolicy.directives[${JSON.stringify(name)}]: ${problem}`);
  }
  return list as Entry[];
}

/** `scriptSrc` → `script-src`, after helmet's check of the name. */
function directiveName(raw: string): string {
  if (!NAME.test(raw)) {
    throw invalidOption(
      `contentSecurityPolicy.directives has an invalid directive name ${JSON.stringify(raw)}: write it as 'script-src' or scriptSrc (letters, digits and dashes, starting with a lower-case letter)`,
    );
  }
  return raw.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * @internal Checks the `contentSecurityPolicy` option and builds its plan. `nonce`: add
 * `'nonce-…'` to `script-src` and `style-src`.
 */
export function cspPlan(option: unknown, nonce: boolean): CspPlan {
  const options = option === true || option === undefined ? {} : option;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption(
      `contentSecurityPolicy must be true (helmet's default policy), false (no policy) or { directives, useDefaults, reportOnly }; got ${describe(option)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw invalidOption(`contentSecurityPolicy has no option ${JSON.stringify(key)}: its options are directives, useDefaults and reportOnly`);
  }
  const { directives = {}, useDefaults = true, reportOnly = false } = options as Record<string, unknown>;
  if (typeof useDefaults !== 'boolean') throw invalidOption(`contentSecurityPolicy.useDefaults must be true or false; got ${describe(useDefaults)}`);
  if (typeof reportOnly !== 'boolean') throw invalidOption(`contentSecurityPolicy.reportOnly must be true or false; got ${describe(reportOnly)}`);
  if (directives === null || typeof directives !== 'object' || Array.isArray(directives)) {
    throw invalidOption(`contentSecurityPolicy.directives must be an object such as { scriptSrc: ["'self'"] }; got ${describe(directives)}`);
  }

  const result = new Map<string, Entry[]>(useDefaults ? Object.entries(getDefaultDirectives()) : []);
  let defaultSrcDisabled = false;
  const seen = new Set<string>();
  for (const raw of Object.keys(directives)) {
    const name = directiveName(raw);
    if (seen.has(name)) throw invalidOption(`contentSecurityPolicy.directives names ${JSON.stringify(name)} twice (as ${name} and a camelCase twin): keep one`);
    seen.add(name);
    const value = (directives as Record<string, unknown>)[raw];
    if (value === null) {
      if (name === 'default-src') {
        throw invalidOption('contentSecurityPolicy needs a default-src, and default-src was set to null: give it sources, or dangerouslyDisableDefaultSrc if you really want none');
      }
      result.delete(name);
      continue;
    }
    if (value === dangerouslyDisableDefaultSrc) {
      if (name !== 'default-src') throw invalidOption(`dangerouslyDisableDefaultSrc is only for default-src; to drop ${name}, leave it out or set it to null`);
      defaultSrcDisabled = true;
      result.delete(name);
      continue;
    }
    if (typeof value === 'symbol' && value.description === 'dangerouslyDisableDefaultSrc') {
      throw invalidOption("that dangerouslyDisableDefaultSrc is helmet's: import { dangerouslyDisableDefaultSrc } from '@velox/security-headers' instead");
    }
    result.set(name, entriesOf(name, value));
  }
  if (result.size === 0) throw invalidOption('contentSecurityPolicy has no directives: give some, or write contentSecurityPolicy: false to send no policy');
  if (!result.has('default-src') && !defaultSrcDisabled) {
    throw invalidOption(
      "contentSecurityPolicy needs a default-src: add directives: { defaultSrc: [\"'self'\"] }, or dangerouslyDisableDefaultSrc if you really want none",
    );
  }

  if (nonce) {
    // Adding the nonce never takes a permission away: a script-src or style-src the policy lacks
    // starts from default-src's sources (what the browser applied in its place). With neither,
    // nothing is restricted and nothing is added.
    const fallback = result.get('default-src');
    for (const name of ['script-src', 'style-src']) {
      const entries = result.get(name) ?? fallback;
      if (entries !== undefined) result.set(name, [...entries, NONCE]);
    }
  }

  const name = reportOnly ? 'content-security-policy-report-only' : 'content-security-policy';
  const list = [...result];
  const perRequest = list.some(([, entries]) => entries.some((e) => typeof e === 'function'));
  if (perRequest) return { name, text: undefined, around: undefined, dynamic: list };
  if (!nonce) {
    // helmet's text for a policy without functions: sources joined by spaces.
    const text = list
      .map(([directive, entries]) => {
        const sources = entries.join(' ');
        return sources === '' ? directive : `${directive} ${sources}`;
      })
      .join(';');
    return { name, text, around: undefined, dynamic: undefined };
  }
  // The text around the nonce. Spacing as helmet's for a policy with a function (the nonce is one).
  const around: string[] = [];
  let text = '';
  list.forEach(([directive, entries], i) => {
    if (i > 0) text += ';';
    text += directive;
    for (const entry of entries) {
      if (entry === NONCE) {
        around.push(`${text} 'nonce-`);
        text = "'";
      } else text += ` ${entry as string}`;
    }
  });
  around.push(text);
  return around.length === 1 ? { name, text, around: undefined, dynamic: undefined } : { name, text: undefined, around, dynamic: undefined };
}

/** @internal The policy's text for this request, for a plan with functions. */
export function dynamicPolicy(dynamic: ReadonlyArray<readonly [string, readonly Entry[]]>, nonce: string, req: Request<unknown, unknown>, res: Response): string {
  let out = '';
  for (let d = 0; d < dynamic.length; d++) {
    const [directive, entries] = dynamic[d]!;
    let value = '';
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (typeof entry === 'string') value += ` ${entry}`;
      else if (entry === NONCE) value += ` 'nonce-${nonce}'`;
      else {
        const made: unknown = entry(req, res);
        if (typeof made !== 'string') throw invalidDirective(`A function of the CSP directive ${directive} returned ${describe(made)}: it must return a string such as "'self'"`);
        const problem = entryProblem(made);
        if (problem !== undefined) throw invalidDirective(`A function of the CSP directive ${directive} returned ${problem}`);
        value += ` ${made}`;
      }
    }
    if (d > 0) out += ';';
    out += value === '' ? directive : directive + value;
  }
  return out;
}
