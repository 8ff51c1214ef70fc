/**
 * @velox/security-headers: helmet 8's security headers for Velox, the header block checked and
 * prepared once per configuration, with a fresh CSP nonce per request when asked.
 */
export { securityHeaders, cspNonceOf } from './security-headers.ts';
export { dangerouslyDisableDefaultSrc, getDefaultDirectives } from './csp.ts';
export { SecurityHeadersErrorCodes } from './errors.ts';

export type {
  SecurityHeadersOptions,
  SecurityHeadersAllOptions,
  CrossOriginEmbedderPolicyOptions,
  CrossOriginOpenerPolicyOptions,
  CrossOriginResourcePolicyOptions,
  ReferrerPolicyOptions,
  ReferrerPolicyToken,
  StrictTransportSecurityOptions,
  XDnsPrefetchControlOptions,
  XFrameOptionsOptions,
  XPermittedCrossDomainPoliciesOptions,
} from './options.ts';
export type { ContentSecurityPolicyOptions, CspDirectives, CspDirectiveValue, CspDirectiveFunction } from './csp.ts';
export type { SecurityHeadersErrorCode } from './errors.ts';
