/**
 * The plugin's options: their types, their defaults, and the checks that turn a mistake into a
 * start-up error saying what to write instead.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { normalizeSecurity, type SecurityList, type SecurityRequirement, show } from './describe.ts';
import { invalid } from './errors.ts';

/**
 * The document's `info` object: `title` and `version` are required, the rest is copied as given.
 *
 * @example
 * ```ts
 * const info: OpenApiInfo = { title: 'Shop', version: '1.2.3', description: 'The shop API' };
 * ```
 */
export interface OpenApiInfo {
  title: string;
  version: string;
  summary?: string;
  description?: string;
  termsOfService?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
}

/**
 * A security scheme, as OpenAPI 3.1 writes it: `{ type: 'http', scheme: 'bearer' }`,
 * `{ type: 'apiKey', in: 'header', name: 'x-api-key' }`, `{ type: 'apiKey', in: 'cookie', name: 'sid' }`…
 *
 * @example
 * ```ts
 * const bearer: SecurityScheme = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
 * ```
 */
export type SecurityScheme =
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description?: string }
  | { type: 'mutualTLS'; description?: string }
  | { type: 'oauth2'; flows: Record<string, unknown>; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string };

/**
 * Options of the {@link openapi} plugin.
 *
 * @example
 * ```ts
 * await app.register(openapi, {
 *   info: { title: 'Shop', version: '1.2.3' },
 *   path: '/openapi.json',
 *   ui: '/docs',
 *   securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
 *   security: 'bearer',
 * });
 * ```
 */
export interface OpenApiOptions {
  /** The document's `info`: `title` and `version` are required. */
  info: OpenApiInfo;
  /** Where the document is served, as `application/json`. Default: `/openapi.json`. */
  path?: string;
  /** Where the docs page (Swagger UI) is served, at the path and the path with a slash; `false` for none. Default: `/docs`. */
  ui?: string | false;
  /** The document's `servers`. Default: none (clients and the docs page use the document's own origin). */
  servers?: ReadonlyArray<{ url: string; description?: string; variables?: Record<string, unknown> }>;
  /** The document's `tags`, with descriptions, in the order the docs page shows them. Default: none (tags used by routes still work). */
  tags?: ReadonlyArray<{ name: string; description?: string; externalDocs?: { url: string; description?: string } }>;
  /** Security schemes, declared once by name (`components.securitySchemes`), and named by routes' `security`. Default: none. */
  securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  /** The security of every operation that does not set its own (see `describeRoute({ security })`). Default: none. */
  security?: SecurityRequirement;
  /** Schemas to document once under a name in `components.schemas`: a route using the same schema object gets a `$ref` to it. For libraries that do not name schemas themselves (Valibot, ArkType; Zod names those with `.meta({ id })`). Default: none. */
  schemas?: Readonly<Record<string, StandardSchemaV1>>;
  /** The document's `externalDocs`. */
  externalDocs?: { url: string; description?: string };
}

/** The options with their defaults, checked. */
export interface Config {
  info: OpenApiInfo;
  path: string;
  /** The UI's path without a trailing slash ('' at the root), or undefined without a UI. */
  ui: string | undefined;
  servers: OpenApiOptions['servers'];
  tags: OpenApiOptions['tags'];
  securitySchemes: Readonly<Record<string, SecurityScheme>>;
  security: SecurityList | undefined;
  schemas: ReadonlyMap<StandardSchemaV1, string>;
  externalDocs: OpenApiOptions['externalDocs'];
}

const KNOWN = new Set(['info', 'path', 'ui', 'servers', 'tags', 'securitySchemes', 'security', 'schemas', 'externalDocs']);
const NAME = /^[A-Za-z0-9._-]+$/;

/** Checks the options and fills in the defaults. */
export function parseOptions(options: OpenApiOptions): Config {
  if (options === null || typeof options !== 'object') {
    throw invalid("openapi takes options, at least { info: { title: 'Shop', version: '1.0.0' } }");
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(`openapi has no option "${key}"; the options are ${[...KNOWN].join(', ')}`);
  }
  const info = options.info;
  if (info === null || typeof info !== 'object' || typeof info.title !== 'string' || info.title === '' || typeof info.version !== 'string' || info.version === '') {
    throw invalid(`openapi needs info with a title and a version, both strings, such as { info: { title: 'Shop', version: '1.0.0' } }; got ${show(info)}`);
  }
  const path = options.path ?? '/openapi.json';
  checkPath(path, 'path');
  let ui: string | undefined;
  if (options.ui !== false) {
    const given = options.ui ?? '/docs';
    checkPath(given, 'ui');
    ui = given.replace(/\/+$/, '');
    if (path === ui || path === `${ui}/` || path.startsWith(`${ui}/`)) {
      throw invalid(`openapi's path (${path}) lies where the ui (${given}) serves its page and files: give them different paths, such as { path: '/openapi.json', ui: '/docs' }`);
    }
  }
  if (options.servers !== undefined && (!Array.isArray(options.servers) || options.servers.some((s) => typeof s?.url !== 'string'))) {
    throw invalid(`openapi's servers take a list of { url }, such as [{ url: 'https://api.example.com' }]; got ${show(options.servers)}`);
  }
  if (options.tags !== undefined && (!Array.isArray(options.tags) || options.tags.some((t) => typeof t?.name !== 'string'))) {
    throw invalid(`openapi's tags take a list of { name, description }; got ${show(options.tags)}`);
  }
  const securitySchemes = options.securitySchemes ?? {};
  if (securitySchemes === null || typeof securitySchemes !== 'object') throw invalid(`openapi's securitySchemes take an object of schemes by name; got ${show(securitySchemes)}`);
  for (const [name, scheme] of Object.entries(securitySchemes)) checkScheme(name, scheme);
  const security = options.security === undefined ? undefined : normalizeSecurity(options.security, "openapi's security");
  if (security) checkSecurityNames(security, securitySchemes, "openapi's security option");
  const schemas = new Map<StandardSchemaV1, string>();
  for (const [name, schema] of Object.entries(options.schemas ?? {})) {
    if (!NAME.test(name)) throw invalid(`openapi's schemas: "${name}" cannot name a component (letters, digits, '.', '-' and '_' only)`);
    if (typeof (schema as Partial<StandardSchemaV1> | null)?.['~standard']?.validate !== 'function') {
      throw invalid(`openapi's schemas: "${name}" needs a Standard Schema (Zod, Valibot, ArkType…); got ${show(schema)}`);
    }
    schemas.set(schema, name);
  }
  if (options.externalDocs !== undefined && typeof options.externalDocs?.url !== 'string') throw invalid("openapi's externalDocs take { url, description? }");
  return { info, path, ui, servers: options.servers, tags: options.tags, securitySchemes, security, schemas, externalDocs: options.externalDocs };
}

function checkPath(path: unknown, option: string): asserts path is string {
  if (typeof path !== 'string' || !path.startsWith('/') || /\/[:*]/.test(path) || path.includes('?') || path.includes('#')) {
    throw invalid(`openapi's ${option} takes a fixed path starting with "/" (no parameter, wildcard or query), such as '${option === 'ui' ? '/docs' : '/openapi.json'}'; got ${show(path)}`);
  }
}

function checkScheme(name: string, scheme: SecurityScheme): void {
  const where = `openapi's securitySchemes.${name}`;
  if (!NAME.test(name)) throw invalid(`${where}: a scheme name takes letters, digits, '.', '-' and '_' only`);
  if (scheme === null || typeof scheme !== 'object') throw invalid(`${where} takes an OpenAPI security scheme, such as { type: 'http', scheme: 'bearer' }`);
  switch (scheme.type) {
    case 'http':
      if (typeof scheme.scheme !== 'string' || scheme.scheme === '') throw invalid(`${where} (type http) needs a scheme, such as { type: 'http', scheme: 'bearer' }`);
      return;
    case 'apiKey':
      if (typeof scheme.name !== 'string' || scheme.name === '' || !['header', 'query', 'cookie'].includes(scheme.in)) {
        throw invalid(`${where} (type apiKey) needs a name and in (header, query or cookie), such as { type: 'apiKey', in: 'cookie', name: 'sid' }`);
      }
      return;
    case 'mutualTLS':
      return;
    case 'oauth2':
      if (scheme.flows === null || typeof scheme.flows !== 'object') throw invalid(`${where} (type oauth2) needs flows`);
      return;
    case 'openIdConnect':
      if (typeof scheme.openIdConnectUrl !== 'string') throw invalid(`${where} (type openIdConnect) needs an openIdConnectUrl`);
      return;
    default:
      throw invalid(`${where} has type ${show((scheme as { type?: unknown }).type)}; the types are http, apiKey, mutualTLS, oauth2 and openIdConnect`);
  }
}

/** Throws unless every scheme a security requirement names is declared. */
export function checkSecurityNames(security: SecurityList, schemes: Readonly<Record<string, SecurityScheme>>, where: string, code?: (message: string) => Error): void {
  for (const alternative of security) {
    for (const name of Object.keys(alternative)) {
      if (!Object.hasOwn(schemes, name)) {
        const declared = Object.keys(schemes);
        const message = `${where} names the security scheme "${name}", which openapi's securitySchemes does not declare (${declared.length ? `it declares ${declared.join(', ')}` : 'it declares none'}): add it, such as securitySchemes: { ${name}: { type: 'http', scheme: 'bearer' } }`;
        throw code ? code(message) : invalid(message);
      }
    }
  }
}
