/**
 * @velox/otel: OpenTelemetry tracing and HTTP server metrics for Velox, from the request
 * lifecycle `@velox/core` publishes on `node:diagnostics_channel`.
 */
export { VeloxInstrumentation, METRIC_HTTP_SERVER_ACTIVE_REQUESTS, METRIC_VELOX_BODY_SPILL_FILES, METRIC_VELOX_BODY_SPILLED } from './instrumentation.ts';
export { OtelErrorCodes } from './errors.ts';

export type { VeloxInstrumentationConfig } from './instrumentation.ts';
export type { OtelErrorCode } from './errors.ts';
