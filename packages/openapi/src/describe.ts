/**
 * describeRoute(): a marker that documents a route and never runs. It is a metadata-only
 * middleware (`markMetadataOnly()` of `@velox/core`): core leaves it out of the route's chain at
 * registration, and the plugin finds it in the route's `handlers` when it builds the document.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { markMetadataOnly, type Middleware } from '@velox/core';
import { invalid } from './errors.ts';

/**
 * Who may call an operation: the name of a security scheme declared in the plugin's
 * `securitySchemes` (`'bearer'`), a list of alternatives (`['bearer', 'apiKey']`: either one),
 * OpenAPI's own form (`[{ oauth: ['read'] }]`, or `[{ apiKey: [], session: [] }]` for both
 * together), or `[]` for none (a public route under a global `security`).
 *
 * @example
 * ```ts
 * app.get('/me', describeRoute({ security: 'session' }), me);
 * app.get('/health', describeRoute({ security: [] }), health);
 * ```
 */
export type SecurityRequirement = string | ReadonlyArray<string | Readonly<Record<string, readonly string[]>>>;

/**
 * One documented response of {@link RouteDescription.responses}: a description, and the body's
 * schema (its output type is documented) or `null` for no body.
 *
 * @example
 * ```ts
 * const unauthorized: ResponseDescription = { description: 'Not signed in', schema: Problem };
 * ```
 */
export interface ResponseDescription {
  /** Default: the status's reason phrase (`Not Found`), or the one `validate({ response })` has. */
  description?: string;
  /** The body, as a Standard Schema (its output type), or `null` for none. Default: the one `validate({ response })` gives for the status, if any. */
  schema?: StandardSchemaV1 | null;
  /** The body's media type. Default: `application/json`. */
  contentType?: string;
}

/**
 * HTTP methods an `any()` route can be documented under.
 *
 * @example
 * ```ts
 * app.any('/echo', describeRoute({ summary: 'Echo', methods: ['get', 'post'] satisfies DocumentedMethod[] }), echo);
 * ```
 */
export type DocumentedMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/**
 * What {@link describeRoute} takes. Every field is optional.
 *
 * @example
 * ```ts
 * const description: RouteDescription = { summary: 'One item', tags: ['items'], operationId: 'getItem' };
 * ```
 */
export interface RouteDescription {
  /** A short summary of what the operation does. */
  summary?: string;
  /** A longer description (CommonMark). */
  description?: string;
  /** Tags, for grouping in the docs page and in generated clients. Added to the tags of describeRoute() markers given to enclosing routers. */
  tags?: readonly string[];
  /** A unique name for the operation (generated clients name their functions after it). Default: generated from the method and path (`getItemsById`). */
  operationId?: string;
  /** The operation is deprecated. */
  deprecated?: boolean;
  /** Who may call it (see {@link SecurityRequirement}). Default: the plugin's `security`. */
  security?: SecurityRequirement;
  /** More responses by status (`401`), range (`'4XX'`) or `'default'`: a description, or a {@link ResponseDescription}. Merged with `validate({ response })`'s. */
  responses?: { readonly [status: number | string]: string | ResponseDescription };
  /** Leave the route out of the document. A route can set `hide: false` under a router that hides its routes. */
  hide?: boolean;
  /** For an `any()` route only: the methods to document it under. Default: get, post, put, patch and delete. */
  methods?: readonly DocumentedMethod[];
}

const descriptions = new WeakMap<Function, RouteDescription>();

const FIELDS = new Set(['summary', 'description', 'tags', 'operationId', 'deprecated', 'security', 'responses', 'hide', 'methods']);
const METHODS = new Set<string>(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** The status keys OpenAPI takes: a code, a range, or 'default'. */
export const STATUS_KEY = /^(?:[1-5]\d\d|[1-5]XX|default)$/;

/**
 * A marker that documents a route and costs nothing per request: core leaves it out of the
 * route's chain when the route is registered (it is a metadata-only middleware), and
 * `@velox/openapi` reads it when it builds the document. Put it among a route's middlewares, or
 * on a router with `router.use()` (its fields then apply to every route of the router; a route's
 * own marker comes after and wins, and tags add up).
 *
 * @throws VeloxError `VELOX_ERR_OPENAPI_INVALID_OPTION` for an unknown field or a field of the wrong type.
 * @example
 * ```ts
 * import { describeRoute } from '@velox/openapi';
 *
 * app.get('/items/:id', describeRoute({ summary: 'One item', tags: ['items'], operationId: 'getItem' }), (req, res) => res.json(item));
 * app.get('/internal', describeRoute({ hide: true }), handler); // left out of the document
 * ```
 */
export function describeRoute(description: RouteDescription = {}): Middleware {
  const checked = check(description);
  const marker = markMetadataOnly<Middleware>((_req, _res, next) => next());
  descriptions.set(marker, checked);
  return marker;
}

/** The description a describeRoute() marker carries, or undefined for any other function. */
export function descriptionOf(fn: unknown): RouteDescription | undefined {
  return typeof fn === 'function' ? descriptions.get(fn) : undefined;
}

function check(d: RouteDescription): RouteDescription {
  if (d === null || typeof d !== 'object' || Array.isArray(d)) {
    throw invalid("describeRoute() takes an object, such as describeRoute({ summary: 'One item', tags: ['items'] })");
  }
  for (const key of Object.keys(d)) {
    if (!FIELDS.has(key)) throw invalid(`describeRoute() has no field "${key}"; the fields are ${[...FIELDS].join(', ')}`);
  }
  for (const key of ['summary', 'description', 'operationId'] as const) {
    if (d[key] !== undefined && (typeof d[key] !== 'string' || d[key] === '')) throw invalid(`describeRoute({ ${key} }) takes a non-empty string; got ${show(d[key])}`);
  }
  for (const key of ['deprecated', 'hide'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'boolean') throw invalid(`describeRoute({ ${key} }) takes true or false; got ${show(d[key])}`);
  }
  if (d.tags !== undefined && (!Array.isArray(d.tags) || d.tags.some((t) => typeof t !== 'string' || t === ''))) {
    throw invalid(`describeRoute({ tags }) takes a list of names, such as ['items']; got ${show(d.tags)}`);
  }
  if (d.methods !== undefined && (!Array.isArray(d.methods) || d.methods.length === 0 || d.methods.some((m) => !METHODS.has(m)))) {
    throw invalid(`describeRoute({ methods }) takes a list of lower-case methods, such as ['get', 'post']; got ${show(d.methods)}`);
  }
  if (d.security !== undefined) normalizeSecurity(d.security, 'describeRoute({ security })');
  if (d.responses !== undefined) {
    if (d.responses === null || typeof d.responses !== 'object' || Array.isArray(d.responses)) {
      throw invalid("describeRoute({ responses }) takes an object by status, such as { 401: 'Not signed in' }");
    }
    for (const [status, response] of Object.entries(d.responses)) {
      if (!STATUS_KEY.test(status)) throw invalid(`describeRoute({ responses }) has the key "${status}": use a status code (401), a range ('4XX') or 'default'`);
      if (typeof response === 'string') continue;
      if (response === null || typeof response !== 'object') throw invalid(`describeRoute({ responses: { ${status} } }) takes a description or { description, schema, contentType }; got ${show(response)}`);
      const schema = response.schema;
      if (schema !== undefined && schema !== null && typeof (schema as Partial<StandardSchemaV1>)['~standard']?.validate !== 'function') {
        throw invalid(`describeRoute({ responses: { ${status}: { schema } } }) takes a Standard Schema (Zod, Valibot, ArkType…) or null; got ${show(schema)}`);
      }
      if (response.description !== undefined && typeof response.description !== 'string') throw invalid(`describeRoute({ responses: { ${status}: { description } } }) takes a string`);
      if (response.contentType !== undefined && (typeof response.contentType !== 'string' || !response.contentType.includes('/'))) {
        throw invalid(`describeRoute({ responses: { ${status}: { contentType } } }) takes a media type such as 'text/csv'; got ${show(response.contentType)}`);
      }
    }
  }
  return Object.freeze({ ...d });
}

/** OpenAPI's form of a security requirement: a list of alternatives, each naming schemes with their scopes. */
export type SecurityList = Array<Record<string, string[]>>;

/** A {@link SecurityRequirement} in OpenAPI's form, checked. */
export function normalizeSecurity(security: SecurityRequirement, where: string): SecurityList {
  if (typeof security === 'string') {
    if (security === '') throw invalid(`${where} takes a scheme name; got ''`);
    return [{ [security]: [] }];
  }
  if (!Array.isArray(security)) throw invalid(`${where} takes a scheme name, a list of them, or OpenAPI's [{ name: [scopes] }]; got ${show(security)}`);
  return security.map((item) => {
    if (typeof item === 'string' && item !== '') return { [item]: [] };
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      const out: Record<string, string[]> = {};
      for (const [name, scopes] of Object.entries(item)) {
        if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) throw invalid(`${where}: the scopes of "${name}" must be a list of strings`);
        out[name] = [...scopes];
      }
      return out;
    }
    throw invalid(`${where} takes scheme names or { name: [scopes] } objects; got ${show(item)}`);
  });
}

/** A value, shortly, for an error message. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  } catch {
    return 'an object';
  }
}
