/**
 * The OpenAPI 3.1 document, built once from the catalog of documented routes: paths as
 * templates, parameters, request bodies and responses from each route's schemas, operation ids,
 * security. A schema that cannot be converted is reported with its route, and the document is
 * built without it.
 */
import { STATUS_CODES } from 'node:http';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type Logger, VeloxError } from '@velox/core';
import type { ResponseDescription } from './describe.ts';
import { OpenApiErrorCodes } from './errors.ts';
import { type Io, type JsonSchema, resolve, SchemaConverter } from './json-schema.ts';
import type { Catalog, Operation } from './operations.ts';
import type { Config, OpenApiInfo, OpenApiOptions } from './options.ts';
import { generatedOperationId, template } from './paths.ts';
import type { ValibotConverter } from './valibot.ts';

/**
 * An OpenAPI 3.1 document, as the plugin builds and serves it.
 *
 * @example
 * ```ts
 * const doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
 * doc.paths['/items/{id}']?.get?.operationId; // 'getItem'
 * ```
 */
export interface OpenApiDocument {
  openapi: string;
  info: OpenApiInfo;
  servers?: OpenApiOptions['servers'];
  tags?: OpenApiOptions['tags'];
  security?: Array<Record<string, string[]>>;
  externalDocs?: OpenApiOptions['externalDocs'];
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, unknown> };
}

/**
 * One operation of {@link OpenApiDocument}.
 *
 * @example
 * ```ts
 * const op: OperationObject | undefined = doc.paths['/items/{id}']?.get;
 * op?.responses['200']?.content?.['application/json']?.schema; // { $ref: '#/components/schemas/Item' }
 * ```
 */
export interface OperationObject {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: ParameterObject[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
}

/**
 * One parameter of {@link OperationObject}.
 *
 * @example
 * ```ts
 * const id: ParameterObject = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
 * ```
 */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

/** Header parameters OpenAPI says to leave out: the document describes them elsewhere. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const VALIDATION_ERROR = 'VeloxValidationError';
const RANGES: Record<string, string> = { '1XX': 'Informational', '2XX': 'Success', '3XX': 'Redirection', '4XX': 'Client error', '5XX': 'Server error', default: 'Default response' };

/** Builds the document. */
export function buildDocument(catalog: Catalog, config: Config, valibot: ValibotConverter | undefined, logger: Logger | undefined): OpenApiDocument {
  const converter = new SchemaConverter(config.schemas, valibot);
  const ids = operationIds(catalog);
  const paths: OpenApiDocument['paths'] = {};
  let needsValidationError = false;
  for (const operation of catalog.operations) {
    const { path, parameters: pathParams } = template(operation.route.path);
    operation.methods.forEach((method, i) => {
      const operationId = ids.get(operation)![i]!;
      const schema = (part: string, s: StandardSchemaV1, io: Io): JsonSchema => {
        try {
          return converter.convert(s, io, `${operationId}${part[0]!.toUpperCase()}${part.slice(1)}`);
        } catch (err) {
          logger?.warn(
            new VeloxError(
              OpenApiErrorCodes.SCHEMA,
              `${operation.label}: its ${part} schema could not be converted to JSON Schema (${(err as Error)?.message ?? String(err)}); the document gives it as any value`,
              { cause: err },
            ),
          );
          return {};
        }
      };
      const v = operation.validation;
      const d = operation.description;
      const op = {} as OperationObject;
      if (d.tags?.length) op.tags = [...d.tags];
      if (d.summary !== undefined) op.summary = d.summary;
      if (d.description !== undefined) op.description = d.description;
      op.operationId = operationId;

      const parameters: ParameterObject[] = [];
      const params = v?.params ? objectParts(resolve(schema('params', v.params, 'input'), converter.components)) : undefined;
      for (const p of pathParams) {
        const given = params?.properties[p.key];
        const parameter: ParameterObject = { name: p.name, in: 'path', required: true, schema: given ?? { type: 'string' } };
        const about = given?.description ?? (p.wildcard ? "The rest of the path, slashes included (req.params['*'])" : undefined);
        if (typeof about === 'string') parameter.description = about;
        parameters.push(parameter);
      }
      for (const [part, where] of [['query', 'query'], ['headers', 'header'], ['cookies', 'cookie']] as const) {
        const s = v?.[part];
        if (!s) continue;
        const json = resolve(schema(part, s, 'input'), converter.components);
        const parts = objectParts(json);
        if (!parts) {
          if (part === 'query' && Object.keys(json).length > 0) parameters.push({ name: 'query', in: 'query', required: false, schema: json, style: 'form', explode: true });
          continue;
        }
        for (const [name, property] of Object.entries(parts.properties)) {
          if (where === 'header' && RESERVED_HEADERS.has(name.toLowerCase())) continue;
          const parameter: ParameterObject = { name, in: where, required: parts.required.has(name), schema: property };
          if (typeof property.description === 'string') parameter.description = property.description;
          parameters.push(parameter);
        }
      }
      if (parameters.length > 0) op.parameters = parameters;

      if (v?.body) {
        op.requestBody = { required: !acceptsUndefined(v.body), content: { [v.anyType ? '*/*' : 'application/json']: { schema: schema('body', v.body, 'input') } } };
      }

      const responses: OperationObject['responses'] = {};
      const statuses = new Set<string>([...(v?.response.keys() ?? []), ...Object.keys(d.responses ?? {})]);
      for (const status of statuses) {
        const given = d.responses?.[status];
        const extra: ResponseDescription = typeof given === 'string' ? { description: given } : (given ?? {});
        const bodySchema = extra.schema !== undefined ? extra.schema : v?.response.get(status);
        const response: OperationObject['responses'][string] = { description: extra.description ?? RANGES[status] ?? STATUS_CODES[status] ?? `Status ${status}` };
        if (bodySchema) response.content = { [extra.contentType ?? 'application/json']: { schema: schema(`response${status}`, bodySchema, 'output') } };
        responses[status] = response;
      }
      const validated = v !== undefined && (v.params || v.query || v.headers || v.cookies || v.body);
      if (validated && responses['400'] === undefined) {
        needsValidationError = true;
        responses['400'] = {
          description: 'The request failed validation (@velox/validate): every issue is listed',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${VALIDATION_ERROR}` } } },
        };
      }
      if (!Object.keys(responses).some((s) => s === 'default' || /^[123]/.test(s))) responses.default = { description: 'Default response' };
      op.responses = {};
      for (const status of sortStatuses(Object.keys(responses))) op.responses[status] = responses[status]!;
      if (d.deprecated) op.deprecated = true;
      if (d.security !== undefined) op.security = d.security;
      (paths[path] ??= {})[method] = op;
    });
  }

  const document: OpenApiDocument = { openapi: '3.1.1', info: config.info, paths };
  if (config.servers?.length) document.servers = config.servers;
  if (config.tags?.length) document.tags = config.tags;
  if (config.security) document.security = config.security;
  if (config.externalDocs) document.externalDocs = config.externalDocs;
  const components: NonNullable<OpenApiDocument['components']> = {};
  if (needsValidationError) converter.components.schemas[VALIDATION_ERROR] = validationErrorSchema();
  if (Object.keys(converter.components.schemas).length > 0) components.schemas = converter.components.schemas;
  if (Object.keys(config.securitySchemes).length > 0) components.securitySchemes = config.securitySchemes;
  if (Object.keys(components).length > 0) document.components = components;
  return document;
}

/** Each operation's ids, one per method: those given, else generated and kept apart from every other. */
function operationIds(catalog: Catalog): Map<Operation, string[]> {
  const out = new Map<Operation, string[]>();
  const taken = new Set<string>();
  for (const op of catalog.operations) if (op.operationIds) for (const id of op.operationIds) taken.add(id);
  for (const op of catalog.operations) {
    if (op.operationIds) {
      out.set(op, op.operationIds);
      continue;
    }
    out.set(
      op,
      op.methods.map((method) => {
        const base = generatedOperationId(method, op.route.path);
        let id = base;
        for (let i = 2; taken.has(id); i++) id = `${base}${i}`;
        taken.add(id);
        return id;
      }),
    );
  }
  return out;
}

/** The properties of an object schema, with which are required; undefined for any other schema. */
function objectParts(json: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } | undefined {
  const properties = json.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) out[name] = schema === true || schema === null || typeof schema !== 'object' ? {} : (schema as JsonSchema);
  return { properties: out, required };
}

/** Whether a schema takes an absent body: asked of the schema itself, at build time only. */
function acceptsUndefined(schema: StandardSchemaV1): boolean {
  try {
    const result = schema['~standard'].validate(undefined);
    return typeof (result as Promise<unknown>).then !== 'function' && !(result as StandardSchemaV1.Result<unknown>).issues;
  } catch {
    return false;
  }
}

/** Codes in order, then ranges, then default. */
function sortStatuses(statuses: Iterable<string>): string[] {
  const rank = (s: string): number => (s === 'default' ? 1000 : s.endsWith('XX') ? Number(s[0]) * 100 + 99 : Number(s));
  return [...statuses].sort((a, b) => rank(a) - rank(b));
}

/** What @velox/validate answers with, through core's default error handler. */
function validationErrorSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'The answer to a request that failed validate(): every issue, in the order params, query, headers, cookies, body',
    properties: {
      statusCode: { type: 'integer', const: 400 },
      error: { type: 'string' },
      message: { type: 'string' },
      code: { type: 'string', const: 'VELOX_ERR_VALIDATION' },
      issues: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            in: { type: 'string', enum: ['params', 'query', 'headers', 'cookies', 'body'] },
            path: { type: 'array', items: { type: ['string', 'integer'] } },
            message: { type: 'string' },
          },
          required: ['in', 'path', 'message'],
        },
      },
    },
    required: ['statusCode', 'error', 'message', 'code', 'issues'],
  };
}
