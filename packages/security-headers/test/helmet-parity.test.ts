// The same options given to real helmet 8 (on node:http) and to securityHeaders (on Velox): the
// two answers carry the same security headers, names and values.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@velox/core';
import { listen } from '@velox/test-utils';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dangerouslyDisableDefaultSrc, type SecurityHeadersOptions, securityHeaders } from '../src/index.ts';
import { HELMET_DEFAULTS, helmetServer, poweredBy, securityHeaderSet } from './helpers.ts';

interface Case {
  name: string;
  ours: SecurityHeadersOptions;
  /** helmet's options when they cannot be ours as they are (its own symbol, a nonce as a function); default: `ours`. */
  helmet?: unknown;
}

const HEADERS = [
  'contentSecurityPolicy',
  'crossOriginEmbedderPolicy',
  'crossOriginOpenerPolicy',
  'crossOriginResourcePolicy',
  'originAgentCluster',
  'referrerPolicy',
  'strictTransportSecurity',
  'xContentTypeOptions',
  'xDnsPrefetchControl',
  'xDownloadOptions',
  'xFrameOptions',
  'xPermittedCrossDomainPolicies',
  'xPoweredBy',
  'xXssProtection',
] as const;
const ALIASES = ['hsts', 'noSniff', 'dnsPrefetchControl', 'ieNoOpen', 'frameguard', 'permittedCrossDomainPolicies', 'hidePoweredBy', 'xssFilter'] as const;

/** How helmet users write a nonce: a directive function reading res.locals (our helmet server sets it to NONCE). */
const nonceSource = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as ServerResponse & { locals: { cspNonce: string } }).locals.cspNonce}'`;
const constant = () => 'https://dynamic.example';

const CASES: Case[] = [
  { name: 'no options (the default set)', ours: {} },
  { name: 'every header given as true', ours: Object.fromEntries(HEADERS.map((h) => [h, true])) as SecurityHeadersOptions },
  ...HEADERS.map((h): Case => ({ name: `${h}: false`, ours: { [h]: false } })),
  ...ALIASES.map((h): Case => ({ name: `${h}: false (an alias)`, ours: { [h]: false } })),
  {
    name: 'CSP directives changed: camelCase and kebab-case names, a Set, a single string, one default dropped',
    ours: {
      contentSecurityPolicy: {
        directives: {
          scriptSrc: ["'self'", 'https://cdn.example.com'],
          'img-src': new Set(["'self'", 'data:', 'https:']),
          reportUri: '/csp-report',
          upgradeInsecureRequests: null,
          connectSrc: ["'self'", 'wss://live.example.com'],
        },
      },
    },
  },
  { name: 'CSP without the defaults', ours: { contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], imgSrc: ["'self'"], sandbox: [] } } } },
  { name: 'CSP report-only', ours: { contentSecurityPolicy: { reportOnly: true, directives: { reportTo: 'csp' } } } },
  {
    name: 'CSP with default-src disabled',
    ours: { contentSecurityPolicy: { directives: { defaultSrc: dangerouslyDisableDefaultSrc } } },
    helmet: { contentSecurityPolicy: { directives: { defaultSrc: helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc } } },
  },
  { name: 'CSP with a directive function', ours: { contentSecurityPolicy: { directives: { imgSrc: ["'self'", constant], fontSrc: ["'self'"] } } } },
  { name: 'hsts: maxAge rounded down, no subdomains, preload', ours: { hsts: { maxAge: 123.7, includeSubDomains: false, preload: true } } },
  { name: 'strictTransportSecurity: maxAge 0', ours: { strictTransportSecurity: { maxAge: 0 } } },
  { name: 'strictTransportSecurity: preload with the defaults', ours: { strictTransportSecurity: { preload: true } } },
  { name: "frameguard: { action: 'deny' }", ours: { frameguard: { action: 'deny' } } },
  { name: "xFrameOptions: { action: 'same-origin' }", ours: { xFrameOptions: { action: 'same-origin' } } },
  { name: "xFrameOptions: { action: 'DENY' }", ours: { xFrameOptions: { action: 'DENY' } } },
  { name: 'referrerPolicy: a list', ours: { referrerPolicy: { policy: ['no-referrer', 'strict-origin-when-cross-origin'] } } },
  { name: 'referrerPolicy: one token', ours: { referrerPolicy: { policy: 'same-origin' } } },
  { name: 'crossOriginEmbedderPolicy: true', ours: { crossOriginEmbedderPolicy: true } },
  { name: "crossOriginEmbedderPolicy: 'credentialless'", ours: { crossOriginEmbedderPolicy: { policy: 'credentialless' } } },
  { name: "crossOriginOpenerPolicy: 'same-origin-allow-popups'", ours: { crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' } } },
  { name: "crossOriginResourcePolicy: 'cross-origin'", ours: { crossOriginResourcePolicy: { policy: 'cross-origin' } } },
  { name: 'dnsPrefetchControl: { allow: true }', ours: { dnsPrefetchControl: { allow: true } } },
  { name: 'xDnsPrefetchControl: { allow: false }', ours: { xDnsPrefetchControl: { allow: false } } },
  { name: "permittedCrossDomainPolicies: 'by-content-type'", ours: { permittedCrossDomainPolicies: { permittedPolicies: 'by-content-type' } } },
  {
    name: 'several at once',
    ours: {
      contentSecurityPolicy: { directives: { frameAncestors: ["'none'"] } },
      crossOriginEmbedderPolicy: { policy: 'require-corp' },
      hsts: { maxAge: 63_072_000, preload: true },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      xPoweredBy: false,
      xssFilter: false,
    },
  },
  {
    name: 'cspNonce: true (helmet: a nonce function in script-src and style-src)',
    ours: { cspNonce: true },
    helmet: { contentSecurityPolicy: { directives: { scriptSrc: ["'self'", nonceSource], styleSrc: ["'self'", 'https:', "'unsafe-inline'", nonceSource] } } },
  },
  {
    name: 'cspNonce: true with a report-only policy lacking script-src and style-src (they start from default-src)',
    ours: { cspNonce: true, contentSecurityPolicy: { useDefaults: false, reportOnly: true, directives: { defaultSrc: ["'self'", 'https:'], imgSrc: ['data:'] } } },
    helmet: {
      contentSecurityPolicy: {
        useDefaults: false,
        reportOnly: true,
        directives: { defaultSrc: ["'self'", 'https:'], imgSrc: ['data:'], scriptSrc: ["'self'", 'https:', nonceSource], styleSrc: ["'self'", 'https:', nonceSource] },
      },
    },
  },
  {
    name: 'cspNonce: true with a directive function',
    ours: { cspNonce: true, contentSecurityPolicy: { directives: { imgSrc: ["'self'", constant] } } },
    helmet: {
      contentSecurityPolicy: { directives: { imgSrc: ["'self'", constant], scriptSrc: ["'self'", nonceSource], styleSrc: ["'self'", 'https:', "'unsafe-inline'", nonceSource] } },
    },
  },
];

let ours: string;
let theirs: Awaited<ReturnType<typeof helmetServer>>;
let app: Server;

beforeAll(async () => {
  app = new Server({ logger: false });
  CASES.forEach((c, i) => {
    app.get(`/${i}`, poweredBy, securityHeaders(c.ours), (req, res) => res.send(String(res.locals.cspNonce ?? '')));
  });
  ours = await listen(app);
  theirs = await helmetServer(CASES.map((c) => c.helmet ?? c.ours));
});

afterAll(async () => {
  await app?.close();
  await theirs?.close();
});

async function both(i: number): Promise<{ ours: Record<string, string>; helmet: Record<string, string> }> {
  const [a, b] = await Promise.all([fetch(`${ours}/${i}`), fetch(`${theirs.url}/${i}`)]);
  const nonce = await a.text();
  expect(a.status).toBe(200);
  expect(await b.text()).toBe('ok');
  const mine = securityHeaderSet(a.headers);
  if (nonce !== '') {
    for (const name in mine) mine[name] = mine[name]!.replaceAll(nonce, 'NONCE');
  }
  return { ours: mine, helmet: securityHeaderSet(b.headers) };
}

describe('securityHeaders() against helmet 8', () => {
  it.each(CASES.map((c, i) => [c.name, i] as const))('sends the headers helmet sends with %s', async (_name, i) => {
    const { ours: mine, helmet: expected } = await both(i);
    expect(mine).toEqual(expected);
  });

  it('sends exactly helmet 8 default set, written out, and removes X-Powered-By', async () => {
    const { ours: mine, helmet: expected } = await both(0);
    expect(mine).toEqual(HELMET_DEFAULTS);
    expect(expected).toEqual(HELMET_DEFAULTS);
  });

  it('keeps X-Powered-By with xPoweredBy: false, as helmet does', async () => {
    const i = CASES.findIndex((c) => c.name === 'xPoweredBy: false');
    const { ours: mine } = await both(i);
    expect(mine['x-powered-by']).toBe('Express');
  });
});
