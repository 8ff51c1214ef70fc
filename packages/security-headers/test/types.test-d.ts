import type { Middleware, Response } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type CspDirectiveFunction,
  cspNonceOf,
  dangerouslyDisableDefaultSrc,
  getDefaultDirectives,
  type SecurityHeadersErrorCode,
  SecurityHeadersErrorCodes,
  type SecurityHeadersOptions,
  securityHeaders,
} from '../src/index.ts';

declare const res: Response;

describe('securityHeaders types', () => {
  it('returns a core Middleware, with or without options', () => {
    expectTypeOf(securityHeaders()).toEqualTypeOf<Middleware>();
    expectTypeOf(securityHeaders({ cspNonce: true })).toEqualTypeOf<Middleware>();
  });

  it("takes helmet's option names and shapes", () => {
    securityHeaders({
      contentSecurityPolicy: { directives: { scriptSrc: ["'self'", (req, r) => `'nonce-${r.locals.cspNonce}'`], defaultSrc: dangerouslyDisableDefaultSrc, upgradeInsecureRequests: null } },
      frameguard: { action: 'deny' },
      hsts: { maxAge: 60, includeSubDomains: false, preload: true },
      referrerPolicy: { policy: ['no-referrer', 'strict-origin-when-cross-origin'] },
      crossOriginEmbedderPolicy: { policy: 'credentialless' },
      xPoweredBy: false,
    });
    securityHeaders({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'self'"] } } });
  });

  it('refuses a name with its alias, unknown values, and useDefaults: false without directives', () => {
    // @ts-expect-error strictTransportSecurity and its alias hsts together
    securityHeaders({ strictTransportSecurity: true, hsts: true });
    // @ts-expect-error frameguard and xFrameOptions together
    securityHeaders({ frameguard: false, xFrameOptions: false });
    // @ts-expect-error ALLOW-FROM is not an action
    securityHeaders({ frameguard: { action: 'allow-from' } });
    // @ts-expect-error not a Referrer-Policy token
    securityHeaders({ referrerPolicy: { policy: 'never' } });
    // @ts-expect-error useDefaults: false needs directives
    securityHeaders({ contentSecurityPolicy: { useDefaults: false } });
    // @ts-expect-error originAgentCluster takes no options
    securityHeaders({ originAgentCluster: {} });
  });

  it('types directive functions, the nonce reader, the defaults and the codes', () => {
    expectTypeOf<CspDirectiveFunction>().returns.toEqualTypeOf<string>();
    expectTypeOf(cspNonceOf(res)).toEqualTypeOf<string | undefined>();
    expectTypeOf(getDefaultDirectives()).toEqualTypeOf<Record<string, string[]>>();
    expectTypeOf(SecurityHeadersErrorCodes.INVALID_OPTION).toEqualTypeOf<'VELOX_ERR_SECURITY_HEADERS_INVALID_OPTION'>();
    expectTypeOf<SecurityHeadersErrorCode>().toEqualTypeOf<'VELOX_ERR_SECURITY_HEADERS_INVALID_OPTION' | 'VELOX_ERR_SECURITY_HEADERS_INVALID_DIRECTIVE'>();
    expectTypeOf<{ cspNonce: true }>().toMatchTypeOf<SecurityHeadersOptions>();
  });
});
