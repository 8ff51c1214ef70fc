/**
 * The options, helmet 8's names and values, checked once by the factory and turned into a plan:
 * the header block as core's `PreparedHeader`s, the headers to remove, and the CSP when it
 * changes per request.
 */
import { PreparedHeader } from '@velox/core';
import { type ContentSecurityPolicyOptions, type CspPlan, cspPlan } from './csp.ts';
import { invalidOption } from './errors.ts';

/**
 * Options of Cross-Origin-Embedder-Policy.
 *
 * @example
 * ```ts
 * const coep: CrossOriginEmbedderPolicyOptions = { policy: 'credentialless' };
 * ```
 */
export interface CrossOriginEmbedderPolicyOptions {
  /** Default: `'require-corp'`. */
  policy?: 'require-corp' | 'credentialless' | 'unsafe-none';
}

/**
 * Options of Cross-Origin-Opener-Policy.
 *
 * @example
 * ```ts
 * const coop: CrossOriginOpenerPolicyOptions = { policy: 'same-origin-allow-popups' };
 * ```
 */
export interface CrossOriginOpenerPolicyOptions {
  /** Default: `'same-origin'`. */
  policy?: 'same-origin' | 'same-origin-allow-popups' | 'noopener-allow-popups' | 'unsafe-none';
}

/**
 * Options of Cross-Origin-Resource-Policy.
 *
 * @example
 * ```ts
 * const corp: CrossOriginResourcePolicyOptions = { policy: 'cross-origin' };
 * ```
 */
export interface CrossOriginResourcePolicyOptions {
  /** Default: `'same-origin'`. */
  policy?: 'same-origin' | 'same-site' | 'cross-origin';
}

/**
 * One Referrer-Policy token (`''` is allowed, as in helmet: the empty policy).
 *
 * @example
 * ```ts
 * const token: ReferrerPolicyToken = 'strict-origin-when-cross-origin';
 * ```
 */
export type ReferrerPolicyToken =
  | 'no-referrer'
  | 'no-referrer-when-downgrade'
  | 'same-origin'
  | 'origin'
  | 'strict-origin'
  | 'origin-when-cross-origin'
  | 'strict-origin-when-cross-origin'
  | 'unsafe-url'
  | '';

/**
 * Options of Referrer-Policy.
 *
 * @example
 * ```ts
 * const referrer: ReferrerPolicyOptions = { policy: ['no-referrer', 'strict-origin-when-cross-origin'] };
 * ```
 */
export interface ReferrerPolicyOptions {
  /** A token or a list of them (sent joined by commas; browsers take the last they know). Default: `'no-referrer'`. */
  policy?: ReferrerPolicyToken | readonly ReferrerPolicyToken[];
}

/**
 * Options of Strict-Transport-Security.
 *
 * @example
 * ```ts
 * const hsts: StrictTransportSecurityOptions = { maxAge: 63_072_000, includeSubDomains: true, preload: true };
 * ```
 */
export interface StrictTransportSecurityOptions {
  /** Seconds (rounded down). Default: `31536000` (365 days). */
  maxAge?: number;
  /** Default: `true`. */
  includeSubDomains?: boolean;
  /** Default: `false`. */
  preload?: boolean;
}

/**
 * Options of X-DNS-Prefetch-Control.
 *
 * @example
 * ```ts
 * const dns: XDnsPrefetchControlOptions = { allow: true };
 * ```
 */
export interface XDnsPrefetchControlOptions {
  /** `true` sends `on`. Default: `false` (`off`). */
  allow?: boolean;
}

/**
 * Options of X-Frame-Options.
 *
 * @example
 * ```ts
 * const frames: XFrameOptionsOptions = { action: 'deny' };
 * ```
 */
export interface XFrameOptionsOptions {
  /** In any case; `'same-origin'` is read as `'sameorigin'`. Default: `'sameorigin'`. */
  action?: 'deny' | 'sameorigin' | 'same-origin' | 'DENY' | 'SAMEORIGIN';
}

/**
 * Options of X-Permitted-Cross-Domain-Policies.
 *
 * @example
 * ```ts
 * const flash: XPermittedCrossDomainPoliciesOptions = { permittedPolicies: 'by-content-type' };
 * ```
 */
export interface XPermittedCrossDomainPoliciesOptions {
  /** Default: `'none'`. */
  permittedPolicies?: 'none' | 'master-only' | 'by-content-type' | 'all';
}

/**
 * Every option, under helmet's names and its legacy aliases. Each header is on by default (but
 * Cross-Origin-Embedder-Policy), `false` turns it off, `true` is the default, an object configures
 * it. A name and its alias cannot both be given ({@link SecurityHeadersOptions} says so to
 * TypeScript; the factory throws).
 *
 * @example
 * ```ts
 * const options: SecurityHeadersAllOptions = { hsts: { maxAge: 600 }, cspNonce: true };
 * ```
 */
export interface SecurityHeadersAllOptions {
  /** Content-Security-Policy: helmet's policy by default; `{ directives, useDefaults, reportOnly }`; `false` for none. */
  contentSecurityPolicy?: ContentSecurityPolicyOptions | boolean;
  /** Cross-Origin-Embedder-Policy: off by default; `true` sends `require-corp`. */
  crossOriginEmbedderPolicy?: CrossOriginEmbedderPolicyOptions | boolean;
  /** Cross-Origin-Opener-Policy. Default: `same-origin`. */
  crossOriginOpenerPolicy?: CrossOriginOpenerPolicyOptions | boolean;
  /** Cross-Origin-Resource-Policy. Default: `same-origin`. */
  crossOriginResourcePolicy?: CrossOriginResourcePolicyOptions | boolean;
  /** Origin-Agent-Cluster: `?1`. Default: on. */
  originAgentCluster?: boolean;
  /** Referrer-Policy. Default: `no-referrer`. */
  referrerPolicy?: ReferrerPolicyOptions | boolean;
  /** Strict-Transport-Security. Default: `max-age=31536000; includeSubDomains`. */
  strictTransportSecurity?: StrictTransportSecurityOptions | boolean;
  /** Alias of `strictTransportSecurity`. */
  hsts?: StrictTransportSecurityOptions | boolean;
  /** X-Content-Type-Options: `nosniff`. Default: on. */
  xContentTypeOptions?: boolean;
  /** Alias of `xContentTypeOptions`. */
  noSniff?: boolean;
  /** X-DNS-Prefetch-Control. Default: `off`. */
  xDnsPrefetchControl?: XDnsPrefetchControlOptions | boolean;
  /** Alias of `xDnsPrefetchControl`. */
  dnsPrefetchControl?: XDnsPrefetchControlOptions | boolean;
  /** X-Download-Options: `noopen`. Default: on. */
  xDownloadOptions?: boolean;
  /** Alias of `xDownloadOptions`. */
  ieNoOpen?: boolean;
  /** X-Frame-Options. Default: `SAMEORIGIN`. */
  xFrameOptions?: XFrameOptionsOptions | boolean;
  /** Alias of `xFrameOptions`. */
  frameguard?: XFrameOptionsOptions | boolean;
  /** X-Permitted-Cross-Domain-Policies. Default: `none`. */
  xPermittedCrossDomainPolicies?: XPermittedCrossDomainPoliciesOptions | boolean;
  /** Alias of `xPermittedCrossDomainPolicies`. */
  permittedCrossDomainPolicies?: XPermittedCrossDomainPoliciesOptions | boolean;
  /** Remove X-Powered-By. Default: `true`. */
  xPoweredBy?: boolean;
  /** Alias of `xPoweredBy`. */
  hidePoweredBy?: boolean;
  /** X-XSS-Protection: `0` (turns off the old browsers' XSS auditor). Default: on. */
  xXssProtection?: boolean;
  /** Alias of `xXssProtection`. */
  xssFilter?: boolean;
  /**
   * A fresh nonce per request in `res.locals.cspNonce` (24 base64 characters), added as
   * `'nonce-…'` to the policy's `script-src` and `style-src`. Needs a policy (not
   * `contentSecurityPolicy: false`). Default: `false`.
   */
  cspNonce?: boolean;
}

/** The two names of a header, only one of which may be given. */
type OneOf<A extends string, B extends string> = { [K in A]?: never } | { [K in B]?: never };

/**
 * Options of `securityHeaders()`: helmet 8's, plus `cspNonce`. A name and its alias
 * (`strictTransportSecurity` and `hsts`…) cannot both be given.
 *
 * @example
 * ```ts
 * const options: SecurityHeadersOptions = {
 *   contentSecurityPolicy: { directives: { imgSrc: ["'self'", 'https:'] } },
 *   frameguard: { action: 'deny' },
 *   cspNonce: true,
 * };
 * ```
 */
export type SecurityHeadersOptions = SecurityHeadersAllOptions &
  OneOf<'strictTransportSecurity', 'hsts'> &
  OneOf<'xContentTypeOptions', 'noSniff'> &
  OneOf<'xDnsPrefetchControl', 'dnsPrefetchControl'> &
  OneOf<'xDownloadOptions', 'ieNoOpen'> &
  OneOf<'xFrameOptions', 'frameguard'> &
  OneOf<'xPermittedCrossDomainPolicies', 'permittedCrossDomainPolicies'> &
  OneOf<'xPoweredBy', 'hidePoweredBy'> &
  OneOf<'xXssProtection', 'xssFilter'>;

/** @internal What the middleware does per request, decided once. */
export interface Plan {
  /** The headers that do not change per request, in helmet's order. */
  block: readonly PreparedHeader[];
  /** Lower-case names removed first: X-Powered-By, and the headers this instance was told to turn off. */
  remove: readonly string[];
  /** The policy when it changes per request (a nonce or a function); undefined when it is in the block or off. */
  csp: CspPlan | undefined;
  /** Whether a nonce is made per request. */
  nonce: boolean;
}

const ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['strictTransportSecurity', 'hsts'],
  ['xContentTypeOptions', 'noSniff'],
  ['xDnsPrefetchControl', 'dnsPrefetchControl'],
  ['xDownloadOptions', 'ieNoOpen'],
  ['xFrameOptions', 'frameguard'],
  ['xPermittedCrossDomainPolicies', 'permittedCrossDomainPolicies'],
  ['xPoweredBy', 'hidePoweredBy'],
  ['xXssProtection', 'xssFilter'],
];

const KNOWN = new Set([
  'contentSecurityPolicy',
  'crossOriginEmbedderPolicy',
  'crossOriginOpenerPolicy',
  'crossOriginResourcePolicy',
  'originAgentCluster',
  'referrerPolicy',
  'cspNonce',
  ...ALIASES.flat(),
]);

/** What to write instead of options other packages take. */
const MOVED: Record<string, string> = {
  enableCSPNonces: "@fastify/helmet's enableCSPNonces is cspNonce here: write cspNonce: true (one nonce, in res.locals.cspNonce, in script-src and style-src)",
  global:
    "@fastify/helmet's global has no equivalent option: app.use(securityHeaders()) covers every request; app.use('/prefix', securityHeaders()) or app.get(path, securityHeaders(), handler) covers fewer",
  expectCt: 'Expect-CT is obsolete (helmet 7 dropped it): remove the option',
  permissionsPolicy: 'helmet sends no Permissions-Policy: set it with res.set() or a PreparedHeader in a middleware of your own',
};

const TOKENS = new Set(['no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin', 'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url', '']);
const COEP = ['require-corp', 'credentialless', 'unsafe-none'];
const COOP = ['same-origin', 'same-origin-allow-popups', 'noopener-allow-popups', 'unsafe-none'];
const CORP = ['same-origin', 'same-site', 'cross-origin'];
const PERMITTED = ['none', 'master-only', 'by-content-type', 'all'];

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The object an option was given as, with only `keys` in it. */
function objectOption(name: string, value: unknown, keys: readonly string[], example: string): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw invalidOption(`${name} must be true (its default), false (off) or an object such as ${example}; got ${show(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    if (name === 'strictTransportSecurity' || name === 'hsts') {
      if (key === 'maxage') throw invalidOption(`${name} has no option "maxage": write maxAge (a capital A)`);
      if (key === 'includeSubdomains') throw invalidOption(`${name} has no option "includeSubdomains": write includeSubDomains (a capital D)`);
    }
    throw invalidOption(`${name} has no option ${JSON.stringify(key)}: its options are ${keys.join(', ')}; e.g. ${example}`);
  }
  return value;
}

function oneOf(name: string, field: string, value: unknown, allowed: readonly string[], fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw invalidOption(`${name}.${field} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}; got ${show(value)}`);
  }
  return value;
}

function flag(name: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw invalidOption(`${name} must be true or false; got ${show(value)}`);
  return value;
}

/** A header's option: `undefined` (its default), `true`, `false` or an object, under its name or its alias. */
function pick(options: Record<string, unknown>, name: string, alias?: string): { key: string; value: unknown } {
  if (alias !== undefined && alias in options) {
    if (name in options) throw invalidOption(`${name} was given twice, also as its alias ${alias}: keep ${name} and remove ${alias}`);
    return { key: alias, value: options[alias] };
  }
  return { key: name, value: options[name] };
}

/** `{ policy }` headers: COEP, COOP, CORP. */
function policyHeader(key: string, value: unknown, allowed: readonly string[]): string {
  if (value === true || value === undefined) return allowed === COEP ? 'require-corp' : 'same-origin';
  const object = objectOption(key, value, ['policy'], `{ policy: '${allowed[1]}' }`);
  return oneOf(key, 'policy', object.policy, allowed, allowed === COEP ? 'require-corp' : 'same-origin');
}

function referrerPolicy(key: string, value: unknown): string {
  if (value === true || value === undefined) return 'no-referrer';
  const { policy = 'no-referrer' } = objectOption(key, value, ['policy'], "{ policy: 'strict-origin-when-cross-origin' }");
  const tokens: unknown[] = typeof policy === 'string' ? [policy] : Array.isArray(policy) ? policy : [policy];
  if (tokens.length === 0) throw invalidOption(`${key}.policy is an empty list: give at least one token, such as 'no-referrer'`);
  const seen = new Set<unknown>();
  for (const token of tokens) {
    if (typeof token !== 'string' || !TOKENS.has(token)) {
      throw invalidOption(`${key}.policy has an unknown token ${show(token)}: use ${[...TOKENS].filter(Boolean).map((t) => `'${t}'`).join(', ')}`);
    }
    if (seen.has(token)) throw invalidOption(`${key}.policy names ${show(token)} twice: keep one`);
    seen.add(token);
  }
  return tokens.join(',');
}

function strictTransportSecurity(key: string, value: unknown): string {
  const object = value === true || value === undefined ? {} : objectOption(key, value, ['maxAge', 'includeSubDomains', 'preload'], '{ maxAge: 31536000, includeSubDomains: true }');
  const { maxAge = 365 * 24 * 60 * 60 } = object;
  if (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge < 0) {
    throw invalidOption(`${key}.maxAge must be a number of seconds, 0 or more, such as 31536000 (a year); got ${show(maxAge)}`);
  }
  let text = `max-age=${Math.floor(maxAge)}`;
  if (flag(`${key}.includeSubDomains`, object.includeSubDomains) ?? true) text += '; includeSubDomains';
  if (flag(`${key}.preload`, object.preload)) text += '; preload';
  return text;
}

function xFrameOptions(key: string, value: unknown): string {
  if (value === true || value === undefined) return 'SAMEORIGIN';
  const { action = 'sameorigin' } = objectOption(key, value, ['action'], "{ action: 'deny' }");
  const upper = typeof action === 'string' ? action.toUpperCase() : undefined;
  if (upper === 'DENY' || upper === 'SAMEORIGIN') return upper;
  if (upper === 'SAME-ORIGIN') return 'SAMEORIGIN';
  throw invalidOption(`${key}.action must be 'deny' or 'sameorigin' (ALLOW-FROM is obsolete: use the CSP's frame-ancestors); got ${show(action)}`);
}

/** A header that only turns on or off (helmet warns when it gets an object; this throws). */
function onOff(key: string, value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') throw invalidOption(`${key} takes no options: write true (the default) or false (off); got ${show(value)}`);
  return value;
}

function prepared(name: string, value: string): PreparedHeader {
  try {
    return new PreparedHeader(name, value);
  } catch (err) {
    throw invalidOption(`${name} cannot be sent as ${JSON.stringify(value)}: ${(err as Error).message}`, err);
  }
}

/** @internal Checks the options and decides what every request gets. */
export function planOf(input: unknown): Plan {
  if (input === undefined) input = {};
  if (!isPlainObject(input)) {
    if (input !== null && typeof input === 'object' && 'method' in input && 'url' in input) {
      throw invalidOption('securityHeaders was used as a middleware: write app.use(securityHeaders()), with the parentheses');
    }
    throw invalidOption(`securityHeaders takes an object of options, such as { frameguard: { action: 'deny' } }; got ${show(input)}`);
  }
  const options = input;
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    throw invalidOption(MOVED[key] ?? `securityHeaders has no option ${JSON.stringify(key)}: its options are helmet 8's (${[...KNOWN].join(', ')})`);
  }
  for (const key of Object.keys(options)) {
    if (options[key] === null) throw invalidOption(`${key} is null: write false to turn it off, or leave it out for its default`);
  }

  const nonce = flag('cspNonce', options.cspNonce) ?? false;
  const block: PreparedHeader[] = [];
  const remove: string[] = [];
  let csp: CspPlan | undefined;

  const header = (key: string, name: string, value: unknown, make: (key: string, value: unknown) => string, offByDefault = false) => {
    if (value === false) remove.push(name.toLowerCase());
    else if (!(offByDefault && value === undefined)) block.push(prepared(name, make(key, value)));
  };

  const cspOption = options.contentSecurityPolicy;
  if (cspOption === false) {
    if (nonce) {
      throw invalidOption('cspNonce: true needs a Content-Security-Policy to put the nonce in: remove contentSecurityPolicy: false, or cspNonce');
    }
    remove.push('content-security-policy', 'content-security-policy-report-only');
  } else {
    const plan = cspPlan(cspOption, nonce);
    if (plan.text !== undefined) block.push(prepared(plan.name, plan.text));
    else csp = plan;
  }
  header('crossOriginEmbedderPolicy', 'Cross-Origin-Embedder-Policy', options.crossOriginEmbedderPolicy, (k, v) => policyHeader(k, v, COEP), true);
  header('crossOriginOpenerPolicy', 'Cross-Origin-Opener-Policy', options.crossOriginOpenerPolicy, (k, v) => policyHeader(k, v, COOP));
  header('crossOriginResourcePolicy', 'Cross-Origin-Resource-Policy', options.crossOriginResourcePolicy, (k, v) => policyHeader(k, v, CORP));
  if (onOff('originAgentCluster', options.originAgentCluster)) block.push(prepared('Origin-Agent-Cluster', '?1'));
  else remove.push('origin-agent-cluster');
  header('referrerPolicy', 'Referrer-Policy', options.referrerPolicy, referrerPolicy);
  const hsts = pick(options, 'strictTransportSecurity', 'hsts');
  header(hsts.key, 'Strict-Transport-Security', hsts.value, strictTransportSecurity);
  const noSniff = pick(options, 'xContentTypeOptions', 'noSniff');
  if (onOff(noSniff.key, noSniff.value)) block.push(prepared('X-Content-Type-Options', 'nosniff'));
  else remove.push('x-content-type-options');
  const dns = pick(options, 'xDnsPrefetchControl', 'dnsPrefetchControl');
  header(dns.key, 'X-DNS-Prefetch-Control', dns.value, (k, v) => {
    if (v === true || v === undefined) return 'off';
    return flag(`${k}.allow`, objectOption(k, v, ['allow'], '{ allow: true }').allow) ? 'on' : 'off';
  });
  const download = pick(options, 'xDownloadOptions', 'ieNoOpen');
  if (onOff(download.key, download.value)) block.push(prepared('X-Download-Options', 'noopen'));
  else remove.push('x-download-options');
  const frames = pick(options, 'xFrameOptions', 'frameguard');
  header(frames.key, 'X-Frame-Options', frames.value, xFrameOptions);
  const permitted = pick(options, 'xPermittedCrossDomainPolicies', 'permittedCrossDomainPolicies');
  header(permitted.key, 'X-Permitted-Cross-Domain-Policies', permitted.value, (k, v) => {
    if (v === true || v === undefined) return 'none';
    return oneOf(k, 'permittedPolicies', objectOption(k, v, ['permittedPolicies'], "{ permittedPolicies: 'by-content-type' }").permittedPolicies, PERMITTED, 'none');
  });
  const poweredBy = pick(options, 'xPoweredBy', 'hidePoweredBy');
  // First in the list: the common case (this removal only) reads remove[0] alone.
  if (onOff(poweredBy.key, poweredBy.value)) remove.unshift('x-powered-by');
  const xss = pick(options, 'xXssProtection', 'xssFilter');
  if (onOff(xss.key, xss.value)) block.push(prepared('X-XSS-Protection', '0'));
  else remove.push('x-xss-protection');

  return { block: Object.freeze(block), remove: Object.freeze(remove), csp, nonce };
}
