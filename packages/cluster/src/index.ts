/**
 * @velox/cluster: runs a Velox app on every core, in worker processes sharing one port.
 */
export { cluster } from './cluster.ts';
export { ClusterErrorCodes } from './errors.ts';

export type { ClusterOptions, Cluster, WorkerInfo } from './cluster.ts';
export type { ClusterErrorCode } from './errors.ts';
