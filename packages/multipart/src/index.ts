/**
 * @velox/multipart: streaming multipart/form-data uploads for Velox. Parts stream from
 * uWebSockets.js with backpressure, every limit answers 413 with a code naming it, and a client
 * that leaves mid-upload leaves nothing behind.
 */
export { multipart } from './plugin.ts';
export { MultipartErrorCodes } from './errors.ts';
export { safeFileName } from './filename.ts';

export type { PartHandler } from './plugin.ts';
export type { MultipartOptions, MultipartLimits } from './limits.ts';
export type { Part, FieldPart, FilePart, FileInfo, WrittenFile } from './part.ts';
export type { MultipartErrorCode, LimitName } from './errors.ts';
