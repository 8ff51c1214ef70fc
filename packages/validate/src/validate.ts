/**
 * The validate() middleware: checks params, query, headers, cookies and the JSON body against
 * Standard Schemas, and hands the converted values to the handler, typed.
 *
 * Validators may answer synchronously (Zod, Valibot and ArkType do for schemas without async
 * refinements) or with a promise; the synchronous case allocates one small array per request
 * and schedules nothing.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ErrorCodes, isJsonType, markMetadataOnly, type Middleware, type Next, type Request, type Response, type TypedMiddleware, VeloxError } from '@velox/core';
import { ValidateErrorCodes } from './errors.ts';

declare module '@velox/core' {
  interface Request {
    /**
     * The JSON body as checked and converted by `validate({ body })`; `undefined` until then.
     * A middleware that parsed the body earlier may leave it here: `validate` checks it as is.
     */
    body?: unknown;
    /** The headers as checked and converted by `validate({ headers })`; `req.headers` stays raw. */
    validHeaders?: unknown;
    /** The cookies as checked and converted by `validate({ cookies })`; `req.cookies` stays raw. */
    validCookies?: unknown;
  }
}

/**
 * The schemas `validate()` takes, one per part of the request, each optional. Any validator
 * implementing Standard Schema v1 works: Zod (3.24+ and 4), Valibot (1.0+), ArkType (2.0+).
 *
 * @example
 * ```ts
 * const schemas = {
 *   params: v.object({ id: v.pipe(v.string(), v.transform(Number)) }),
 *   headers: v.object({ 'x-api-key': v.string() }),
 * } satisfies ValidationSchemas;
 * app.get('/keys/:id', validate(schemas), (req, res) => res.json({ id: req.params.id }));
 * ```
 */
export interface ValidationSchemas {
  /** Checks `req.params` (decoded strings); the output replaces `req.params`. */
  params?: StandardSchemaV1;
  /** Checks `req.query` (strings, arrays for repeated keys); the output replaces `req.query`. */
  query?: StandardSchemaV1;
  /** Checks `req.headers` (lower-case names); the output goes to `req.validHeaders`. */
  headers?: StandardSchemaV1;
  /** Checks `req.cookies`; the output goes to `req.validCookies`. */
  cookies?: StandardSchemaV1;
  /** Checks the JSON body (`undefined` when empty); the output goes to `req.body`. */
  body?: StandardSchemaV1;
  /**
   * The response bodies, by status: documentation for `@velox/openapi` (each schema's output
   * type). Nothing is checked at run time unless `options.checkResponses` says so.
   */
  response?: ResponseSchemas;
}

/**
 * Response body schemas by status: a status code (`200`), a range (`'4XX'`) or `'default'`, each
 * a Standard Schema, or `null` for an answer without a body (204).
 *
 * @example
 * ```ts
 * const response: ResponseSchemas = { 200: Item, 404: NotFound, 204: null };
 * app.get('/items/:id', validate({ params: P, response }), show);
 * ```
 */
export type ResponseSchemas = { readonly [status: number | string]: StandardSchemaV1 | null };

/**
 * Options of {@link validate}, the second argument.
 *
 * @example
 * ```ts
 * // navigator.sendBeacon() posts a string as text/plain: take its JSON anyway.
 * const options: ValidateOptions = { anyType: true };
 * app.post('/beacon', validate({ body: z.object({ event: z.string() }) }, options), (req, res) => res.sendStatus(204));
 * ```
 */
export interface ValidateOptions {
  /**
   * Parse a non-empty body as JSON whatever its Content-Type says, or when it has none. Default:
   * `false`: the body must come as `application/json` or a `+json` type, else the answer is 415
   * `VELOX_ERR_UNSUPPORTED_MEDIA_TYPE` (from `@velox/core`, as for `req.json()`), so that a
   * cross-site form, which can post `text/plain` without a CORS preflight, never reaches the route.
   */
  anyType?: boolean;
  /**
   * Check each body the route sends with `res.json()` (or `res.send()` of an object) against the
   * `response` schema for its status (the exact status, else its range such as `'4XX'`, else
   * `'default'`), and log a mismatch as a warning (`VELOX_ERR_VALIDATE_RESPONSE_MISMATCH`, with the
   * issues) through the server's logger. The body goes out unchanged either way. Default `false`:
   * response schemas are documentation only. For development and tests: it costs one validation
   * per response on the routes that set it, and nothing elsewhere.
   */
  checkResponses?: boolean;
}

/** A part of the request a schema checks. */
export type ValidationPart = Exclude<keyof ValidationSchemas, 'response'>;

/**
 * One problem found, as sent to the client in the `issues` list of the 400 answer.
 *
 * @example
 * ```ts
 * const issue: ValidationIssue = { in: 'body', path: ['items', 0, 'qty'], message: 'Too small: expected number to be >0' };
 * ```
 */
export interface ValidationIssue {
  /** Which part of the request: `params`, `query`, `headers`, `cookies` or `body`. */
  in: ValidationPart;
  /** Where in that part (keys and array indexes); empty for the part as a whole. */
  path: Array<string | number>;
  /** The validator's message. */
  message: string;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Output<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : never;
type Field<S, Part extends string, Key extends string> = S extends { [P in Part]: infer X extends StandardSchemaV1 }
  ? { [K in Key]: Output<X> }
  : {};

/**
 * What a `validate(schemas)` middleware adds to the handler's `req`: the schema outputs as
 * `params`, `query`, `body`, `validHeaders` and `validCookies`, for the parts it checks.
 *
 * @example
 * ```ts
 * const schemas = { params: z.object({ id: z.coerce.number() }) };
 * type Adds = Validated<typeof schemas>; // { params: { id: number } }
 * ```
 */
export type Validated<S extends ValidationSchemas> = Simplify<
  Field<S, 'params', 'params'> &
    Field<S, 'query', 'query'> &
    Field<S, 'headers', 'validHeaders'> &
    Field<S, 'cookies', 'validCookies'> &
    Field<S, 'body', 'body'>
>;

/** Parts in the order they are checked and reported; where each output goes. */
const PARTS: ReadonlyArray<readonly [ValidationPart, string]> = [
  ['params', 'params'],
  ['query', 'query'],
  ['headers', 'validHeaders'],
  ['cookies', 'validCookies'],
  ['body', 'body'],
];

interface Check {
  part: ValidationPart;
  target: string;
  standard: StandardSchemaV1['~standard'];
}

type Result = StandardSchemaV1.Result<unknown>;

/**
 * A middleware that checks parts of the request against schemas before the handler runs. The
 * handler reads the converted values, with their types inferred: `req.params`, `req.query` and
 * `req.body`, and `req.validHeaders` and `req.validCookies` (the raw `req.headers` and
 * `req.cookies` stay as they were, since other code reads them).
 *
 * Every part is checked, and all problems are reported at once: the middleware calls
 * `next(err)` with a `VeloxError` `VELOX_ERR_VALIDATION` (status 400) whose `details.issues` lists
 * them, and core's default error handler answers `{ statusCode, error, message, code, issues }`.
 * The handler is not reached. A body that is not JSON is one of those issues; an empty body is
 * checked as `undefined`. A non-empty body must come with a JSON Content-Type (`application/json`
 * or a `+json` type), else 415 `VELOX_ERR_UNSUPPORTED_MEDIA_TYPE`, unless `options.anyType`.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { validate } from '@velox/validate';
 *
 * app.post(
 *   '/users/:id/orders',
 *   validate({
 *     params: z.object({ id: z.coerce.number().int() }),
 *     query: z.object({ dryRun: z.enum(['yes', 'no']).default('no') }),
 *     body: z.object({ sku: z.string(), qty: z.number().int().positive() }),
 *   }),
 *   (req, res) => {
 *     req.params.id; // number
 *     req.body.qty; // number
 *     res.status(201).json({ ok: true });
 *   },
 * );
 * ```
 */
export function validate<const S extends ValidationSchemas>(schemas: S, options: ValidateOptions = {}): TypedMiddleware<Validated<S>> {
  const checks = compile(schemas);
  const responses = compileResponses(schemas.response);
  if (checks.length === 0 && responses === undefined) {
    throw invalid('validate() needs at least one schema among params, query, headers, cookies, body and response');
  }
  if (options === null || typeof options !== 'object') throw invalid('validate(schemas, options) takes an options object, such as { anyType: true }');
  const anyType = options.anyType ?? false;
  if (typeof anyType !== 'boolean') throw invalid(`anyType must be true or false; got ${String(anyType)}`);
  const checkResponses = options.checkResponses ?? false;
  if (typeof checkResponses !== 'boolean') throw invalid(`checkResponses must be true or false; got ${String(checkResponses)}`);
  const watch = checkResponses && responses !== undefined ? responseWatcher(responses) : undefined;
  const described = Object.freeze({ schemas: Object.freeze({ ...schemas }), options: Object.freeze({ anyType, checkResponses }) });
  const n = checks.length;
  if (n === 0) {
    // Only response schemas: documentation, which no request needs to run (core drops a
    // metadata-only middleware from the chain), unless their check was asked for.
    const only: Middleware = watch
      ? (req, res, next) => {
          watch(req, res);
          next();
        }
      : markMetadataOnly((_req, _res, next) => next());
    descriptions.set(only, described);
    return only as TypedMiddleware<Validated<S>>;
  }
  const hasBody = checks[n - 1]!.part === 'body';

  const run = (req: Request, next: Next, body: unknown, badJson: boolean): void => {
    const outputs: unknown[] = new Array(n);
    let issues: ValidationIssue[] | undefined;
    let waiting: number[] | undefined;
    let promises: Array<Promise<Result>> | undefined;
    for (let i = 0; i < n; i++) {
      const check = checks[i]!;
      let input: unknown;
      switch (check.part) {
        case 'params':
          input = req.params;
          break;
        case 'query':
          input = req.query;
          break;
        case 'headers':
          input = req.headers;
          break;
        case 'cookies':
          input = req.cookies;
          break;
        default:
          if (badJson) {
            (issues ??= []).push({ in: 'body', path: [], message: 'Body is not valid JSON' });
            continue;
          }
          input = body;
      }
      let result: Result | Promise<Result>;
      try {
        result = check.standard.validate(input);
      } catch (err) {
        // After the body was read we are in a promise callback: a throw would be lost there.
        next(err);
        return;
      }
      if (typeof (result as Promise<Result>).then === 'function') {
        (waiting ??= []).push(i);
        (promises ??= []).push(result as Promise<Result>);
      } else if ((result as Result).issues) {
        issues = collect(issues, check.part, (result as StandardSchemaV1.FailureResult).issues);
      } else {
        outputs[i] = (result as StandardSchemaV1.SuccessResult<unknown>).value;
      }
    }
    if (promises === undefined) {
      finish(req, next, outputs, issues);
      return;
    }
    const indexes = waiting!;
    Promise.all(promises).then((results) => {
      for (let k = 0; k < results.length; k++) {
        const i = indexes[k]!;
        const result = results[k]!;
        if (result.issues) issues = collect(issues, checks[i]!.part, result.issues);
        else outputs[i] = result.value;
      }
      finish(req, next, outputs, issues);
    }, next);
  };

  const finish = (req: Request, next: Next, outputs: unknown[], issues: ValidationIssue[] | undefined): void => {
    if (issues !== undefined) {
      issues.sort(byPart);
      next(new VeloxError(ValidateErrorCodes.VALIDATION, 'Request validation failed', { status: 400, details: { issues } }));
      return;
    }
    const target = req as unknown as Record<string, unknown>;
    for (let i = 0; i < n; i++) target[checks[i]!.target] = outputs[i];
    next();
  };

  const middleware: Middleware = hasBody
    ? (req, res, next) => {
        if (watch) watch(req, res);
        if (req.body !== undefined) return run(req, next, req.body, false);
        const type = anyType ? undefined : req.get('content-type');
        req.text().then((text) => {
          if (text === '') return run(req, next, undefined, false);
          if (!anyType && !isJsonType(type)) return next(unsupportedType(type));
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            return run(req, next, undefined, true);
          }
          run(req, next, body, false);
        }, next);
      }
    : watch
      ? (req, res, next) => {
          watch(req, res);
          run(req, next, undefined, false);
        }
      : (req, _res, next) => run(req, next, undefined, false);
  descriptions.set(middleware, described);
  return middleware as TypedMiddleware<Validated<S>>;
}

/**
 * What a `validate()` middleware was made with, for packages that describe routes
 * (`@velox/openapi` documents them): its schemas (`response` included) and its options with
 * their defaults filled in; `undefined` for any other function.
 *
 * @example
 * ```ts
 * import { validate, validationOf } from '@velox/validate';
 *
 * const check = validate({ query: z.object({ page: z.coerce.number() }) });
 * validationOf(check)?.schemas.query; // the Zod schema
 * ```
 */
export function validationOf(fn: unknown): ValidationDescription | undefined {
  return typeof fn === 'function' ? descriptions.get(fn) : undefined;
}

/**
 * What {@link validationOf} returns: a `validate()` middleware's schemas and options.
 *
 * @example
 * ```ts
 * const described: ValidationDescription | undefined = validationOf(app.routeDefinitions()[0]!.handlers[0]);
 * ```
 */
export interface ValidationDescription {
  readonly schemas: Readonly<ValidationSchemas>;
  readonly options: Readonly<Required<ValidateOptions>>;
}

const descriptions = new WeakMap<Function, ValidationDescription>();

/** The status keys `response` takes: a code, a range, or 'default'. */
const STATUS_KEY = /^(?:[1-5]\d\d|[1-5]XX|default)$/;

function compileResponses(response: ResponseSchemas | undefined): Map<string, StandardSchemaV1['~standard'] | null> | undefined {
  if (response === undefined) return undefined;
  if (response === null || typeof response !== 'object') {
    throw invalid('validate({ response }) takes an object of schemas by status, such as { response: { 200: Item, 404: NotFound } }');
  }
  const out = new Map<string, StandardSchemaV1['~standard'] | null>();
  for (const [status, schema] of Object.entries(response)) {
    if (!STATUS_KEY.test(status)) {
      throw invalid(`validate({ response }) has the key "${status}": use a status code (200), a range ('4XX') or 'default'`);
    }
    if (schema === null) {
      out.set(status, null);
      continue;
    }
    const standard = (schema as Partial<StandardSchemaV1> | undefined)?.['~standard'];
    if (!standard || typeof standard.validate !== 'function') {
      throw invalid(`validate({ response: { ${status} } }) needs a Standard Schema, or null for no body; got ${describe(schema)}`);
    }
    out.set(status, standard);
  }
  if (out.size === 0) throw invalid('validate({ response }) needs at least one status');
  return out;
}

/**
 * The development check of `checkResponses`: wraps this response's `json()` so that each body
 * it sends is validated against the schema for its status, and a mismatch logged.
 */
function responseWatcher(responses: Map<string, StandardSchemaV1['~standard'] | null>): (req: Request, res: Response) => void {
  const schemaFor = (status: number): StandardSchemaV1['~standard'] | null | undefined => {
    const code = String(status);
    if (responses.has(code)) return responses.get(code);
    const range = `${code[0]}XX`;
    return responses.has(range) ? responses.get(range) : responses.get('default');
  };
  const report = (req: Request, status: number, issues: ReadonlyArray<StandardSchemaV1.Issue> | string): void => {
    const list = typeof issues === 'string' ? [{ in: 'response', path: [], message: issues }] : collect(undefined, 'body', issues).map((i) => ({ ...i, in: 'response' }));
    req.server.logger?.warn(
      new VeloxError(ValidateErrorCodes.RESPONSE_MISMATCH, `${req.method} ${req.path} answered ${status} with a body its response schema rejects`, {
        details: { issues: list },
      }),
    );
  };
  return (req, res) => {
    const json = res.json;
    res.json = function checked(this: Response, value: unknown) {
      const status = this.statusCode;
      const standard = schemaFor(status);
      if (standard === null) report(req, status, 'the response schema for this status says it has no body');
      else if (standard !== undefined) {
        try {
          const result = standard.validate(value);
          if (typeof (result as Promise<Result>).then === 'function') {
            (result as Promise<Result>).then((r) => r.issues && report(req, status, r.issues), (err) => report(req, status, String(err)));
          } else if ((result as Result).issues) report(req, status, (result as StandardSchemaV1.FailureResult).issues);
        } catch (err) {
          report(req, status, String(err));
        }
      }
      return json.call(this, value);
    } as Response['json'];
  };
}

function compile(schemas: ValidationSchemas): Check[] {
  if (schemas === null || typeof schemas !== 'object') {
    throw invalid('validate() takes an object of schemas, such as validate({ body: z.object({ … }) })');
  }
  const known = new Set<string>(PARTS.map(([part]) => part));
  known.add('response');
  for (const key of Object.keys(schemas)) {
    if (!known.has(key)) throw invalid(`validate() has no part "${key}"; the parts are params, query, headers, cookies, body and response`);
  }
  const checks: Check[] = [];
  for (const [part, target] of PARTS) {
    const schema = schemas[part] as StandardSchemaV1 | undefined;
    if (schema === undefined) continue;
    const standard = (schema as Partial<StandardSchemaV1> | null)?.['~standard'];
    if (!standard || typeof standard.validate !== 'function') {
      throw invalid(
        `validate({ ${part} }) needs a Standard Schema (a Zod, Valibot or ArkType schema, or anything with a "~standard" property); got ${describe(schema)}`,
      );
    }
    checks.push({ part, target, standard });
  }
  return checks;
}

function collect(
  into: ValidationIssue[] | undefined,
  part: ValidationPart,
  issues: ReadonlyArray<StandardSchemaV1.Issue>,
): ValidationIssue[] {
  const out = into ?? [];
  for (const issue of issues) {
    const path: Array<string | number> = [];
    if (issue.path) {
      for (const segment of issue.path) {
        const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
        path.push(typeof key === 'number' ? key : String(key));
      }
    }
    out.push({ in: part, path, message: issue.message });
  }
  return out;
}

const ORDER: Record<ValidationPart, number> = { params: 0, query: 1, headers: 2, cookies: 3, body: 4 };
function byPart(a: ValidationIssue, b: ValidationIssue): number {
  return ORDER[a.in] - ORDER[b.in];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object without "~standard"' : typeof value;
}

/** The same answer `req.json()` gives to a body that is not JSON by its type. */
function unsupportedType(type: string | undefined): VeloxError {
  const got = type === undefined || type === '' ? 'no Content-Type' : JSON.stringify(type.length > 64 ? `${type.slice(0, 64)}…` : type);
  return new VeloxError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, `Expected a JSON body with Content-Type: application/json, got ${got}`, { status: 415 });
}

function invalid(message: string): VeloxError {
  return new VeloxError(ValidateErrorCodes.INVALID_OPTION, message);
}
