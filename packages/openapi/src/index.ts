/**
 * @velox/openapi: an OpenAPI 3.1 document built once from every route's `validate()` schemas
 * (any Standard Schema validator) and `describeRoute()` markers, and a docs page served by the
 * app itself.
 */
export { openapi } from './plugin.ts';
export { describeRoute } from './describe.ts';
export { OpenApiErrorCodes } from './errors.ts';

export type { RouteDescription, ResponseDescription, SecurityRequirement, DocumentedMethod } from './describe.ts';
export type { OpenApiOptions, OpenApiInfo, SecurityScheme } from './options.ts';
export type { OpenApiDocument, OperationObject, ParameterObject } from './document.ts';
export type { OpenApiErrorCode } from './errors.ts';
