/**
 * The error codes `@velox/security-headers` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/security-headers`. Every code is documented in the package
 * README.
 *
 * @example
 * ```ts
 * import { SecurityHeadersErrorCodes, securityHeaders } from '@velox/security-headers';
 * try {
 *   app.use(securityHeaders({ frameguard: { action: 'allow-from' } }));
 * } catch (err) {
 *   if (err.code === SecurityHeadersErrorCodes.INVALID_OPTION) console.error(err.message);
 * }
 * ```
 */
export const SecurityHeadersErrorCodes = {
  /** Thrown by `securityHeaders()` itself: a bad option (the message says what to write instead); never an HTTP answer. */
  INVALID_OPTION: 'VELOX_ERR_SECURITY_HEADERS_INVALID_OPTION',
  /** 500: a CSP directive function returned something that cannot go in the header (not a string, an unquoted keyword, `;`, `,` or a control character). */
  INVALID_DIRECTIVE: 'VELOX_ERR_SECURITY_HEADERS_INVALID_DIRECTIVE',
} as const;

/**
 * One of the values of {@link SecurityHeadersErrorCodes}.
 *
 * @example
 * ```ts
 * import type { SecurityHeadersErrorCode } from '@velox/security-headers';
 * const mine = (code: string): code is SecurityHeadersErrorCode => code.startsWith('VELOX_ERR_SECURITY_HEADERS_');
 * ```
 */
export type SecurityHeadersErrorCode = (typeof SecurityHeadersErrorCodes)[keyof typeof SecurityHeadersErrorCodes];

/** @internal A programmer error thrown by the factory. */
export function invalidOption(message: string, cause?: unknown): VeloxError {
  return new VeloxError(SecurityHeadersErrorCodes.INVALID_OPTION, message, cause === undefined ? {} : { cause });
}

/** @internal A directive function's result that cannot be sent: a 500, its message kept on the server. */
export function invalidDirective(message: string): VeloxError {
  return new VeloxError(SecurityHeadersErrorCodes.INVALID_DIRECTIVE, message, { status: 500 });
}
