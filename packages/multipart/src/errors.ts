/**
 * The error codes `@velox/multipart` raises, each carried by a `VeloxError` from `@velox/core`.
 * Bad input from a client answers 4xx with one of them; a bad option throws at once.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/multipart`. Every code is documented in the package README.
 * A client that leaves mid-upload rejects with core's `VELOX_ERR_ABORTED` (`ErrorCodes.ABORTED`).
 *
 * @example
 * ```ts
 * import { MultipartErrorCodes } from '@velox/multipart';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === MultipartErrorCodes.FILE_TOO_LARGE) return res.status(413).json({ error: 'Files up to 10 MiB' });
 *   res.status(err.status ?? 500).json({ error: err.message });
 * });
 * ```
 */
export const MultipartErrorCodes = {
  /** 415: the body is not `multipart/form-data`. */
  UNSUPPORTED_MEDIA_TYPE: 'VELOX_ERR_MULTIPART_UNSUPPORTED_MEDIA_TYPE',
  /** 400: the Content-Type has no boundary, or one that is empty, over 70 characters or holds characters RFC 2046 forbids. */
  BAD_BOUNDARY: 'VELOX_ERR_MULTIPART_BAD_BOUNDARY',
  /** 400: a part's header block is malformed (a line without a name, a control character, cut by a boundary), or it lacks `Content-Disposition: form-data; name=…`. */
  BAD_PART_HEADER: 'VELOX_ERR_MULTIPART_BAD_PART_HEADER',
  /** 400: the body ended before the closing boundary. */
  UNEXPECTED_END: 'VELOX_ERR_MULTIPART_UNEXPECTED_END',
  /** 413 (`fileSize`): a file is larger than the limit. */
  FILE_TOO_LARGE: 'VELOX_ERR_MULTIPART_FILE_TOO_LARGE',
  /** 413 (`files`): more files than the limit. */
  TOO_MANY_FILES: 'VELOX_ERR_MULTIPART_TOO_MANY_FILES',
  /** 413 (`fields`): more text fields than the limit. */
  TOO_MANY_FIELDS: 'VELOX_ERR_MULTIPART_TOO_MANY_FIELDS',
  /** 413 (`fieldSize`): a text field's value is larger than the limit. */
  FIELD_TOO_LARGE: 'VELOX_ERR_MULTIPART_FIELD_TOO_LARGE',
  /** 413 (`fieldNameSize`): a part's name is longer than the limit. */
  FIELD_NAME_TOO_LARGE: 'VELOX_ERR_MULTIPART_FIELD_NAME_TOO_LARGE',
  /** 413 (`parts`): more parts (files and fields) than the limit. */
  TOO_MANY_PARTS: 'VELOX_ERR_MULTIPART_TOO_MANY_PARTS',
  /** 413 (`headerPairs`): a part has more header lines than the limit. */
  TOO_MANY_HEADERS: 'VELOX_ERR_MULTIPART_TOO_MANY_HEADERS',
  /** 413 (`headerSize`): a part's header block is larger than the limit. */
  HEADER_TOO_LARGE: 'VELOX_ERR_MULTIPART_HEADER_TOO_LARGE',
  /** 413 (`bodySize`): the whole body is larger than the limit (known from Content-Length, or counted). */
  BODY_TOO_LARGE: 'VELOX_ERR_MULTIPART_BODY_TOO_LARGE',
  /**
   * 408: the connection closed after the body arrived slower than uWebSockets.js accepts (about
   * 16 KB/s over 10 s): uWS timed it out. The client gets no answer; this is for the server's logs.
   */
  TOO_SLOW: 'VELOX_ERR_MULTIPART_TOO_SLOW',
  /** Thrown (500 if it reaches a request): a bad option, such as a limit that is not a whole number. */
  INVALID_OPTION: 'VELOX_ERR_MULTIPART_INVALID_OPTION',
} as const;

/** One of the values of {@link MultipartErrorCodes}. */
export type MultipartErrorCode = (typeof MultipartErrorCodes)[keyof typeof MultipartErrorCodes];

/** The name of a limit, as given in `limits`. */
export type LimitName = 'fileSize' | 'files' | 'fields' | 'fieldSize' | 'fieldNameSize' | 'parts' | 'headerPairs' | 'headerSize' | 'bodySize';

const LIMIT_CODES: Record<LimitName, MultipartErrorCode> = {
  fileSize: MultipartErrorCodes.FILE_TOO_LARGE,
  files: MultipartErrorCodes.TOO_MANY_FILES,
  fields: MultipartErrorCodes.TOO_MANY_FIELDS,
  fieldSize: MultipartErrorCodes.FIELD_TOO_LARGE,
  fieldNameSize: MultipartErrorCodes.FIELD_NAME_TOO_LARGE,
  parts: MultipartErrorCodes.TOO_MANY_PARTS,
  headerPairs: MultipartErrorCodes.TOO_MANY_HEADERS,
  headerSize: MultipartErrorCodes.HEADER_TOO_LARGE,
  bodySize: MultipartErrorCodes.BODY_TOO_LARGE,
};

const LIMIT_TEXT: Record<LimitName, (max: number) => string> = {
  fileSize: (max) => `A file is larger than ${max} bytes`,
  files: (max) => `More than ${max} files`,
  fields: (max) => `More than ${max} fields`,
  fieldSize: (max) => `A field is larger than ${max} bytes`,
  fieldNameSize: (max) => `A part's name is longer than ${max} bytes`,
  parts: (max) => `More than ${max} parts`,
  headerPairs: (max) => `A part has more than ${max} header lines`,
  headerSize: (max) => `A part's headers are larger than ${max} bytes`,
  bodySize: (max) => `The body is larger than ${max} bytes`,
};

/** @internal The 413 for a crossed limit; `details` (sent to the client) names the limit and its value. */
export function limitError(limit: LimitName, max: number): VeloxError {
  return new VeloxError(LIMIT_CODES[limit], LIMIT_TEXT[limit](max), { status: 413, details: { limit, max } });
}

/** @internal A 400 for input that is not well-formed multipart. */
export function badInput(code: MultipartErrorCode, message: string): VeloxError {
  return new VeloxError(code, message, { status: 400 });
}

/** @internal A bad option: a programmer error. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(MultipartErrorCodes.INVALID_OPTION, message);
}
