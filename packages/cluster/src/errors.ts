/**
 * The error codes `@velox/cluster` raises. `cluster()` rejects with them when the cluster cannot
 * start; each is a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/cluster`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { cluster, ClusterErrorCodes } from '@velox/cluster';
 * try {
 *   await cluster({ entry: './app.js', port: 3000 });
 * } catch (err) {
 *   if (err.code === ClusterErrorCodes.LISTEN_FAILED) console.error(err.message); // port in use
 * }
 * ```
 */
export const ClusterErrorCodes = {
  /** A bad option (thrown before any worker starts); the message says what to write. */
  INVALID_OPTION: 'VELOX_ERR_CLUSTER_INVALID_OPTION',
  /** The port cannot be taken: in use by another program, or not allowed. No worker is started. */
  LISTEN_FAILED: 'VELOX_ERR_CLUSTER_LISTEN_FAILED',
  /** `entry` is missing, or its default export is not a function returning a Server that is not yet listening. */
  INVALID_ENTRY: 'VELOX_ERR_CLUSTER_INVALID_ENTRY',
  /** A worker failed while starting (its entry threw, it exited, or it did not listen in time); the others were stopped. */
  WORKER_FAILED: 'VELOX_ERR_CLUSTER_WORKER_FAILED',
} as const;

/** One of the values of {@link ClusterErrorCodes}. */
export type ClusterErrorCode = (typeof ClusterErrorCodes)[keyof typeof ClusterErrorCodes];

/** @internal */
export function clusterError(code: ClusterErrorCode, message: string, cause?: unknown): VeloxError {
  return new VeloxError(code, message, cause === undefined ? {} : { cause });
}
