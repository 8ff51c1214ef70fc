/**
 * Limits: their defaults, and the checks that turn a bad option into an error at once.
 */
import { invalidOption, type LimitName } from './errors.ts';

/**
 * Limits on one multipart body. Sizes are in bytes. Each may be `Infinity` to lift it. Any limit
 * crossed answers 413 with a code naming it; nothing is cut short silently (unless `truncate`).
 *
 * @example
 * ```ts
 * const limits: MultipartLimits = { fileSize: 50 * 1024 * 1024, files: 1, fields: 20 };
 * await app.register(multipart, { limits });
 * ```
 */
export interface MultipartLimits {
  /** Largest file. Default: 10 MiB. */
  fileSize?: number;
  /** Most files. Default: 10. */
  files?: number;
  /** Most text fields. Default: 100. */
  fields?: number;
  /** Largest text field value (held in memory). Default: 100 KiB. */
  fieldSize?: number;
  /** Longest part name (the `name` of a field or file input). Default: 100. */
  fieldNameSize?: number;
  /** Most parts, files and fields together. Default: `files + fields`. */
  parts?: number;
  /** Most header lines in one part. Default: 16. */
  headerPairs?: number;
  /** Largest header block of one part. Default: 16 KiB. */
  headerSize?: number;
  /**
   * Largest whole body. Default: the largest body the other limits allow,
   * `files × fileSize + fields × fieldSize + parts × (headerSize + 256)` (about 112 MiB with the
   * defaults), so it only catches what cannot be a valid form anyway (a preamble without end, say).
   */
  bodySize?: number;
}

/** Options of `req.multipart()`, `req.parts()` and the plugin (whose values are the server's defaults). */
export interface MultipartOptions {
  /** Limits; those not given come from the plugin's options, then from the defaults. */
  limits?: MultipartLimits;
  /**
   * Cut a file or field at its size limit and hand it over with `truncated: true`, instead of
   * failing the request with 413. Counting limits (files, fields, parts…) still answer 413.
   * Default: `false`.
   */
  truncate?: boolean;
}

/** @internal Every limit, resolved. */
export type Limits = Required<MultipartLimits>;

/** @internal Options with every value resolved. */
export interface Settings {
  limits: Limits;
  truncate: boolean;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** @internal The defaults of the limits that have one of their own. */
export const DEFAULT_LIMITS = {
  fileSize: 10 * MIB,
  files: 10,
  fields: 100,
  fieldSize: 100 * KIB,
  fieldNameSize: 100,
  headerPairs: 16,
  headerSize: 16 * KIB,
} as const;

const NAMES: LimitName[] = ['fileSize', 'files', 'fields', 'fieldSize', 'fieldNameSize', 'parts', 'headerPairs', 'headerSize', 'bodySize'];

/** Checks options given by a programmer; throws `VELOX_ERR_MULTIPART_INVALID_OPTION` on a bad one. */
function check(options: unknown, where: string): MultipartOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw invalidOption(`${where} takes an object such as { limits: { fileSize: 1048576 } }`);
  const { limits, truncate } = options as MultipartOptions;
  for (const key of Object.keys(options)) {
    if (key !== 'limits' && key !== 'truncate') throw invalidOption(`${where}: unknown option "${key}"; the options are limits and truncate`);
  }
  if (truncate !== undefined && typeof truncate !== 'boolean') throw invalidOption(`${where}: truncate must be true or false`);
  if (limits === undefined) return { truncate };
  if (limits === null || typeof limits !== 'object') throw invalidOption(`${where}: limits must be an object such as { fileSize: 1048576 }`);
  for (const key of Object.keys(limits)) {
    if (!NAMES.includes(key as LimitName)) throw invalidOption(`${where}: unknown limit "${key}"; the limits are ${NAMES.join(', ')}`);
    const value = (limits as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value === Infinity || (Number.isInteger(value) && value >= 0))) {
      throw invalidOption(`${where}: limits.${key} must be a whole number of bytes or items (or Infinity), got ${JSON.stringify(value) ?? String(value)}`);
    }
  }
  if (limits.headerSize === 0 || limits.headerPairs === 0) {
    throw invalidOption(`${where}: limits.headerSize and limits.headerPairs must be at least 1: every part has a header`);
  }
  return { limits, truncate };
}

/** @internal Checks the plugin's options; they become the server's defaults. */
export function checkDefaults(options: unknown): MultipartOptions {
  return check(options, 'multipart plugin');
}

/** @internal Resolves per-call options over the server's defaults over the built-in ones. */
export function resolve(serverDefaults: MultipartOptions | undefined, options: unknown, where: string): Settings {
  const call = check(options, where);
  const given: MultipartLimits = { ...serverDefaults?.limits };
  for (const [key, value] of Object.entries(call.limits ?? {})) if (value !== undefined) (given as Record<string, number>)[key] = value;
  const fileSize = given.fileSize ?? DEFAULT_LIMITS.fileSize;
  const files = given.files ?? DEFAULT_LIMITS.files;
  const fields = given.fields ?? DEFAULT_LIMITS.fields;
  const fieldSize = given.fieldSize ?? DEFAULT_LIMITS.fieldSize;
  const fieldNameSize = given.fieldNameSize ?? DEFAULT_LIMITS.fieldNameSize;
  const parts = given.parts ?? files + fields;
  const headerPairs = given.headerPairs ?? DEFAULT_LIMITS.headerPairs;
  const headerSize = given.headerSize ?? DEFAULT_LIMITS.headerSize;
  const bodySize = given.bodySize ?? times(files, fileSize) + times(fields, fieldSize) + times(parts, headerSize + 256);
  return {
    limits: { fileSize, files, fields, fieldSize, fieldNameSize, parts, headerPairs, headerSize, bodySize },
    truncate: call.truncate ?? serverDefaults?.truncate ?? false,
  };
}

/** a × b, where none of something is none even when each could be endless (0 × Infinity is NaN). */
function times(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : a * b;
}
