/**
 * Which routes the document holds, and what each says about itself: the routes are read as
 * they are registered (and those registered before the plugin, at once), so that a mistake such
 * as two routes with one operationId stops the program where the second route is added.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type RouteDefinition, VeloxError } from '@velox/core';
import { validationOf } from '@velox/validate';
import { type DocumentedMethod, descriptionOf, normalizeSecurity, type RouteDescription, type SecurityList } from './describe.ts';
import { OpenApiErrorCodes } from './errors.ts';
import { type Config, checkSecurityNames } from './options.ts';
import { sameButSlash } from './paths.ts';

/** What the `validate()` middlewares of a route check, merged (a later one's part wins). */
export interface Validation {
  params?: StandardSchemaV1;
  query?: StandardSchemaV1;
  headers?: StandardSchemaV1;
  cookies?: StandardSchemaV1;
  body?: StandardSchemaV1;
  response: Map<string, StandardSchemaV1 | null>;
  anyType: boolean;
}

/** A documented route. */
export interface Operation {
  route: RouteDefinition;
  /** `GET /items/:id`, for messages. */
  label: string;
  /** The methods it is documented under, lower-case (several for an `any()` route). */
  methods: DocumentedMethod[];
  description: Omit<RouteDescription, 'security'> & { security?: SecurityList };
  validation: Validation | undefined;
  /** The operationIds it was given, one per method, or undefined to generate them. */
  operationIds: string[] | undefined;
}

const ANY_METHODS: DocumentedMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

/** The documented routes, in the order registered. */
export class Catalog {
  readonly operations: Operation[] = [];
  #config: Config;
  #own: WeakSet<object>;
  /** Routes by their handlers array: a trailing-slash twin shares its route's. */
  #byHandlers = new WeakMap<object, RouteDefinition[]>();
  #given = new Map<string, string>();

  constructor(config: Config, own: WeakSet<object>) {
    this.#config = config;
    this.#own = own;
  }

  /** Takes one registered route: documents it or leaves it out, and checks what it says. */
  add(route: RouteDefinition): void {
    if (this.#own.has(route.handlers)) return;
    const same = this.#byHandlers.get(route.handlers);
    if (same?.some((r) => r.method === route.method && sameButSlash(r.path, route.path))) return; // a trailing-slash twin
    if (same) same.push(route);
    else this.#byHandlers.set(route.handlers, [route]);

    const label = `${route.method} ${route.path}`;
    const description = mergeDescriptions(route.handlers);
    if (description.hide === true) return;
    const catchAll = route.method === 'ANY' || route.path.endsWith('*');
    // A router's markers reach its catch-alls too: only one that names the route documents it.
    if (catchAll && description.summary === undefined && description.description === undefined && description.operationId === undefined) return;
    let security: SecurityList | undefined;
    if (description.security !== undefined) {
      security = normalizeSecurity(description.security, `describeRoute({ security }) of ${label}`);
      checkSecurityNames(security, this.#config.securitySchemes, `${label} (describeRoute({ security }))`, (m) => new VeloxError(OpenApiErrorCodes.UNKNOWN_SECURITY, m));
    }
    const methods = route.method === 'ANY' ? [...(description.methods ?? ANY_METHODS)] : [route.method.toLowerCase() as DocumentedMethod];
    let operationIds: string[] | undefined;
    if (description.operationId !== undefined) {
      const id = description.operationId;
      operationIds = methods.length === 1 ? [id] : methods.map((m) => `${id}${m[0]!.toUpperCase()}${m.slice(1)}`);
      for (const oid of operationIds) {
        const other = this.#given.get(oid);
        if (other !== undefined) {
          throw new VeloxError(
            OpenApiErrorCodes.DUPLICATE_OPERATION_ID,
            `${label} and ${other} both have the operationId "${oid}": an operationId names one operation. Give one of them another (describeRoute({ operationId })), or leave it out to have one generated from the method and path` +
              ' (a router mounted at two prefixes documents its routes twice: describe them without an operationId)',
          );
        }
        this.#given.set(oid, label);
      }
    }
    this.operations.push({
      route,
      label,
      methods,
      description: { ...description, security },
      validation: mergeValidation(route.handlers),
      operationIds,
    });
  }
}

/** The describeRoute() markers of a chain, outermost first, merged: later fields win, tags add up, responses merge by status. */
function mergeDescriptions(handlers: RouteDefinition['handlers']): RouteDescription {
  let merged: RouteDescription = {};
  for (const fn of handlers) {
    const d = descriptionOf(fn);
    if (!d) continue;
    const tags = d.tags ? [...new Set([...(merged.tags ?? []), ...d.tags])] : merged.tags;
    const responses = d.responses ? { ...merged.responses, ...d.responses } : merged.responses;
    merged = { ...merged, ...d, tags, responses };
    if (merged.tags === undefined) delete merged.tags;
    if (merged.responses === undefined) delete merged.responses;
  }
  return merged;
}

function mergeValidation(handlers: RouteDefinition['handlers']): Validation | undefined {
  let merged: Validation | undefined;
  for (const fn of handlers) {
    const v = validationOf(fn);
    if (!v) continue;
    merged ??= { response: new Map(), anyType: false };
    const { response, ...parts } = v.schemas;
    for (const [part, schema] of Object.entries(parts)) if (schema !== undefined) (merged as unknown as Record<string, unknown>)[part] = schema;
    if (response) for (const [status, schema] of Object.entries(response)) merged.response.set(status, schema);
    if (v.schemas.body !== undefined) merged.anyType = v.options.anyType;
  }
  return merged;
}

