/**
 * The errors create-velox raises. They are not `VeloxError`s of `@velox/core`: create-velox
 * depends on nothing (so `npm create velox` downloads one small tarball, not uWebSockets.js), so
 * it has its own small class with the same `code` field and prefixed codes.
 */

/**
 * The error codes create-velox raises. Every code is documented in the package README. The
 * command line prints the message and exits with code 2 for each of them.
 *
 * @example
 * ```ts
 * import { CreateErrorCodes, CreateVeloxError, createApp } from 'create-velox';
 * try {
 *   await createApp({ name: 'my-api', language: 'ts', packages: ['cors'] });
 * } catch (err) {
 *   if (err instanceof CreateVeloxError && err.code === CreateErrorCodes.TARGET_NOT_EMPTY) console.error('pick another name');
 *   else throw err;
 * }
 * ```
 */
export const CreateErrorCodes = {
  /** The app's name is not a valid name for a new npm package. */
  INVALID_NAME: 'VELOX_ERR_CREATE_INVALID_NAME',
  /** The folder the app would be written to exists and is not empty (or is not a folder). */
  TARGET_NOT_EMPTY: 'VELOX_ERR_CREATE_TARGET_NOT_EMPTY',
  /** `--packages` (or `packages`) names a package create-velox does not offer. */
  UNKNOWN_PACKAGE: 'VELOX_ERR_CREATE_UNKNOWN_PACKAGE',
  /** A command-line flag that does not exist, lacks its value, or contradicts another (`--ts --js`). */
  INVALID_ARGUMENT: 'VELOX_ERR_CREATE_INVALID_ARGUMENT',
  /** The questions were cancelled (Ctrl-C, or the input ended before every answer); nothing was written. */
  CANCELLED: 'VELOX_ERR_CREATE_CANCELLED',
} as const;

/**
 * One of the values of {@link CreateErrorCodes}.
 *
 * @example
 * ```ts
 * import type { CreateErrorCode } from 'create-velox';
 * const retry: CreateErrorCode[] = ['VELOX_ERR_CREATE_INVALID_NAME', 'VELOX_ERR_CREATE_TARGET_NOT_EMPTY'];
 * ```
 */
export type CreateErrorCode = (typeof CreateErrorCodes)[keyof typeof CreateErrorCodes];

/**
 * A mistake in what create-velox was asked to do: a bad name, a folder in the way, an unknown
 * package or flag. Its message says what to write instead. Nothing has been written when one is
 * thrown.
 *
 * @example
 * ```ts
 * import { CreateVeloxError, createApp } from 'create-velox';
 * await createApp({ name: 'My App' }).catch((err) => {
 *   if (err instanceof CreateVeloxError) console.error(err.code, err.message); // VELOX_ERR_CREATE_INVALID_NAME …
 * });
 * ```
 */
export class CreateVeloxError extends Error {
  /** One of {@link CreateErrorCodes}. */
  readonly code: CreateErrorCode;

  constructor(code: CreateErrorCode, message: string) {
    super(message);
    this.name = 'CreateVeloxError';
    this.code = code;
  }
}

/** @internal */
export function invalidName(message: string): CreateVeloxError {
  return new CreateVeloxError(CreateErrorCodes.INVALID_NAME, message);
}

/** @internal */
export function targetNotEmpty(message: string): CreateVeloxError {
  return new CreateVeloxError(CreateErrorCodes.TARGET_NOT_EMPTY, message);
}

/** @internal */
export function unknownPackage(message: string): CreateVeloxError {
  return new CreateVeloxError(CreateErrorCodes.UNKNOWN_PACKAGE, message);
}

/** @internal */
export function invalidArgument(message: string): CreateVeloxError {
  return new CreateVeloxError(CreateErrorCodes.INVALID_ARGUMENT, message);
}

/** @internal */
export function cancelled(message = 'Cancelled: nothing was written.'): CreateVeloxError {
  return new CreateVeloxError(CreateErrorCodes.CANCELLED, message);
}
