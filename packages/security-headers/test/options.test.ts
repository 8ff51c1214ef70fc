// Every bad option throws VELOX_ERR_SECURITY_HEADERS_INVALID_OPTION from securityHeaders() itself,
// with a message that says what to write instead.
import { VeloxError } from '@velox/core';
import { listen, thrownBy } from '@velox/test-utils';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { dangerouslyDisableDefaultSrc, SecurityHeadersErrorCodes, securityHeaders } from '../src/index.ts';
import { server } from './helpers.ts';

/** Calls the factory with options TypeScript would refuse, as JavaScript code could. */
const make = (options: unknown) => () => securityHeaders(options as never);

function expectInvalid(fn: () => unknown, message: RegExp): void {
  const err = thrownBy(fn);
  expect(err).toBeInstanceOf(VeloxError);
  expect((err as VeloxError).code).toBe(SecurityHeadersErrorCodes.INVALID_OPTION);
  expect((err as VeloxError).message).toMatch(message);
}

const csp = (contentSecurityPolicy: unknown) => make({ contentSecurityPolicy });
const directives = (d: Record<string, unknown>) => csp({ directives: d });

const BAD: Array<[string, () => unknown, RegExp]> = [
  // The options object
  ['options that are a string', make('deny'), /takes an object of options/],
  ['options that are an array', make([{ frameguard: false }]), /takes an object of options/],
  ['an unknown option (a typo)', make({ contentSecurityPolicies: false }), /no option "contentSecurityPolicies".*contentSecurityPolicy/],
  ["@fastify/helmet's enableCSPNonces", make({ enableCSPNonces: true }), /write cspNonce: true/],
  ["@fastify/helmet's global", make({ global: false }), /app\.use\('\/prefix', securityHeaders\(\)\)/],
  ['helmet 6 expectCt', make({ expectCt: true }), /remove the option/],
  ['an option set to null', make({ referrerPolicy: null }), /write false to turn it off/],
  ['cspNonce with the CSP turned off', make({ cspNonce: true, contentSecurityPolicy: false }), /cspNonce: true needs a Content-Security-Policy/],
  ['cspNonce that is not a boolean', make({ cspNonce: 'yes' }), /cspNonce must be true or false/],
  // Both a name and its alias
  ['strictTransportSecurity and hsts', make({ strictTransportSecurity: { maxAge: 1 }, hsts: false }), /given twice.*remove hsts/],
  ['xContentTypeOptions and noSniff', make({ xContentTypeOptions: true, noSniff: true }), /remove noSniff/],
  ['xDnsPrefetchControl and dnsPrefetchControl', make({ xDnsPrefetchControl: true, dnsPrefetchControl: false }), /remove dnsPrefetchControl/],
  ['xDownloadOptions and ieNoOpen', make({ xDownloadOptions: true, ieNoOpen: true }), /remove ieNoOpen/],
  ['xFrameOptions and frameguard', make({ xFrameOptions: { action: 'deny' }, frameguard: { action: 'deny' } }), /remove frameguard/],
  ['xPermittedCrossDomainPolicies and permittedCrossDomainPolicies', make({ xPermittedCrossDomainPolicies: true, permittedCrossDomainPolicies: true }), /remove permittedCrossDomainPolicies/],
  ['xPoweredBy and hidePoweredBy', make({ xPoweredBy: false, hidePoweredBy: false }), /remove hidePoweredBy/],
  ['xXssProtection and xssFilter', make({ xXssProtection: true, xssFilter: true }), /remove xssFilter/],
  ['a name and its alias, the alias undefined (helmet refuses it too)', make({ strictTransportSecurity: true, hsts: undefined }), /given twice/],
  // Content-Security-Policy
  ['a CSP given as a string', csp("default-src 'self'"), /contentSecurityPolicy must be true.*false.*directives/],
  ['an unknown CSP option', csp({ directive: {} }), /no option "directive".*directives, useDefaults and reportOnly/],
  ['useDefaults that is not a boolean', csp({ useDefaults: 'no' }), /useDefaults must be true or false/],
  ['reportOnly that is not a boolean', csp({ reportOnly: 1 }), /reportOnly must be true or false/],
  ['directives that are an array', csp({ directives: [["default-src", "'self'"]] }), /directives must be an object/],
  ['a directive name with a space', directives({ 'script src': ["'self'"] }), /invalid directive name "script src"/],
  ['an empty directive name', directives({ '': ["'self'"] }), /invalid directive name ""/],
  ['a directive name starting upper-case', directives({ ScriptSrc: ["'self'"] }), /invalid directive name "ScriptSrc"/],
  ['a directive name ending with a dash', directives({ 'script-src-': ["'self'"] }), /invalid directive name/],
  ['a directive twice, in camelCase and kebab-case', directives({ scriptSrc: ["'self'"], 'script-src': ["'self'"] }), /"script-src" twice/],
  ['default-src set to null', directives({ defaultSrc: null }), /needs a default-src.*dangerouslyDisableDefaultSrc/],
  ['dangerouslyDisableDefaultSrc on another directive', directives({ scriptSrc: dangerouslyDisableDefaultSrc }), /only for default-src/],
  ["helmet's own dangerouslyDisableDefaultSrc", directives({ defaultSrc: helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc }), /import \{ dangerouslyDisableDefaultSrc \} from '@velox\/security-headers'/],
  ['no directives at all', csp({ useDefaults: false, directives: {} }), /no directives.*contentSecurityPolicy: false/],
  ['no default-src', csp({ useDefaults: false, directives: { scriptSrc: ["'self'"] } }), /needs a default-src: add directives: \{ defaultSrc/],
  ['a directive value false', directives({ scriptSrc: false }), /must be a list of sources/],
  ['a directive value undefined', directives({ scriptSrc: undefined }), /must be a list of sources/],
  ['a directive value that is a number', directives({ scriptSrc: 42 }), /must be a list of sources/],
  ['a directive value that is a plain object', directives({ scriptSrc: { self: true } }), /must be a list of sources/],
  ['a source holding ";"', directives({ scriptSrc: ["'self'; object-src *"] }), /";" or ","/],
  ['a source holding ","', directives({ scriptSrc: ["'self', https:"] }), /";" or ","/],
  ['a source holding a newline', directives({ scriptSrc: ["'self'\r\nX-Injected: 1"] }), /control character/],
  ['a single-string directive holding a newline', directives({ reportUri: '/csp\n' }), /control character/],
  ['a source that is a number', directives({ scriptSrc: ["'self'", 42] }), /holds 42: each source must be a string/],
  ['a source that is null', directives({ scriptSrc: [null] }), /holds null: each source must be a string/],
  ['an unquoted self', directives({ scriptSrc: ['self'] }), /should be quoted: write "'self'"/],
  ['an unquoted none', directives({ objectSrc: ['none'] }), /should be quoted/],
  ['an unquoted nonce', directives({ scriptSrc: ['nonce-abc'] }), /should be quoted/],
  ['an unquoted hash', directives({ scriptSrc: ['sha256-abc='] }), /should be quoted/],
  // The other headers
  ['a crossOriginEmbedderPolicy policy it does not know', make({ crossOriginEmbedderPolicy: { policy: 'require-corp-x' } }), /must be one of 'require-corp', 'credentialless', 'unsafe-none'/],
  ['a crossOriginEmbedderPolicy given as a string', make({ crossOriginEmbedderPolicy: 'require-corp' }), /or an object such as \{ policy: 'credentialless' \}/],
  ['a crossOriginOpenerPolicy policy it does not know', make({ crossOriginOpenerPolicy: { policy: 'same-site' } }), /crossOriginOpenerPolicy\.policy must be one of/],
  ['a crossOriginResourcePolicy policy it does not know', make({ crossOriginResourcePolicy: { policy: 'same-origin-allow-popups' } }), /crossOriginResourcePolicy\.policy must be one of/],
  ['an unknown crossOriginResourcePolicy key', make({ crossOriginResourcePolicy: { value: 'same-site' } }), /no option "value": its options are policy/],
  ['originAgentCluster with options', make({ originAgentCluster: {} }), /originAgentCluster takes no options/],
  ['a referrerPolicy token it does not know', make({ referrerPolicy: { policy: 'never' } }), /unknown token "never"/],
  ['a referrerPolicy token twice', make({ referrerPolicy: { policy: ['origin', 'origin'] } }), /names "origin" twice/],
  ['an empty referrerPolicy list', make({ referrerPolicy: { policy: [] } }), /empty list/],
  ['a referrerPolicy token that is not a string', make({ referrerPolicy: { policy: [1] } }), /unknown token 1/],
  ['a referrerPolicy given as a string', make({ referrerPolicy: 'no-referrer' }), /referrerPolicy must be true.*\{ policy: 'strict-origin-when-cross-origin' \}/],
  ['a negative hsts maxAge', make({ hsts: { maxAge: -1 } }), /maxAge must be a number of seconds, 0 or more/],
  ['an infinite hsts maxAge', make({ hsts: { maxAge: Number.POSITIVE_INFINITY } }), /maxAge must be a number of seconds/],
  ['a NaN hsts maxAge', make({ hsts: { maxAge: Number.NaN } }), /maxAge must be a number of seconds/],
  ['an hsts maxAge given as a string', make({ strictTransportSecurity: { maxAge: '123' } }), /maxAge must be a number of seconds/],
  ['hsts maxage (lower-case a)', make({ hsts: { maxage: 1 } }), /write maxAge/],
  ['hsts includeSubdomains (lower-case d)', make({ strictTransportSecurity: { includeSubdomains: true } }), /write includeSubDomains/],
  ['hsts includeSubDomains that is not a boolean', make({ hsts: { includeSubDomains: 'yes' } }), /includeSubDomains must be true or false/],
  ['hsts preload that is not a boolean', make({ hsts: { preload: 1 } }), /preload must be true or false/],
  ['an unknown hsts key', make({ hsts: { setIf: () => true } }), /no option "setIf"/],
  ['xContentTypeOptions with options', make({ xContentTypeOptions: { nosniff: true } }), /takes no options/],
  ['xDnsPrefetchControl allow that is not a boolean', make({ xDnsPrefetchControl: { allow: 'yes' } }), /allow must be true or false/],
  ['an unknown dnsPrefetchControl key', make({ dnsPrefetchControl: { on: true } }), /no option "on"/],
  ['xDownloadOptions that is a string', make({ ieNoOpen: 'noopen' }), /ieNoOpen takes no options/],
  ['a frameguard action allow-from', make({ frameguard: { action: 'allow-from', domain: 'https://a.example' } }), /no option "domain"/],
  ['a frameguard action it does not know', make({ frameguard: { action: 'allow-from' } }), /'deny' or 'sameorigin'.*frame-ancestors/],
  ['a frameguard action that is not a string', make({ xFrameOptions: { action: 42 } }), /'deny' or 'sameorigin'/],
  ['a frameguard given as a string', make({ frameguard: 'deny' }), /or an object such as \{ action: 'deny' \}/],
  ['a permittedCrossDomainPolicies value it does not know', make({ permittedCrossDomainPolicies: { permittedPolicies: 'some' } }), /must be one of 'none', 'master-only', 'by-content-type', 'all'/],
  ["helmet 3's hidePoweredBy setTo", make({ hidePoweredBy: { setTo: 'PHP 4.2.0' } }), /hidePoweredBy takes no options/],
  ["an old xssFilter's mode", make({ xssFilter: { mode: 'block' } }), /xssFilter takes no options/],
];

describe('securityHeaders(options) refuses bad options', () => {
  it.each(BAD)('throws for %s', (_name, fn, message) => {
    expectInvalid(fn, message);
  });

  it('accepts every good option shape without throwing', () => {
    expect(() =>
      securityHeaders({
        contentSecurityPolicy: { useDefaults: true, reportOnly: false, directives: { 'img-src': new Set(["'self'"]), sandbox: '' } },
        crossOriginEmbedderPolicy: { policy: 'unsafe-none' },
        crossOriginOpenerPolicy: { policy: 'noopener-allow-popups' },
        crossOriginResourcePolicy: { policy: 'same-site' },
        originAgentCluster: true,
        referrerPolicy: { policy: '' },
        hsts: { maxAge: 10, includeSubDomains: true, preload: false },
        noSniff: true,
        dnsPrefetchControl: { allow: false },
        ieNoOpen: false,
        frameguard: true,
        permittedCrossDomainPolicies: { permittedPolicies: 'master-only' },
        hidePoweredBy: true,
        xssFilter: true,
        cspNonce: true,
      }),
    ).not.toThrow();
  });

  it('answers 500 and says how to fix it when the factory itself is given to app.use()', async () => {
    const app = server();
    app.use(securityHeaders as never);
    app.get('/', (req, res) => res.send('ok'));
    const r = await fetch(`${await listen(app)}/`);
    expect(r.status).toBe(500);
    expect(app.logged).toHaveLength(1);
    expect(app.logged[0]).toMatchObject({ code: SecurityHeadersErrorCodes.INVALID_OPTION });
    expect((app.logged[0] as Error).message).toMatch(/write app\.use\(securityHeaders\(\)\)/);
  });
});
