/**
 * @velox/static: a live directory of static files, served from memory as native uWebSockets.js
 * routes, with ETags, conditional requests, ranges, precompressed and compressed variants.
 */
export { serveStatic } from './serve-static.ts';
export { LiveDirectory } from './live-directory.ts';
export { sendFile } from './send-file.ts';
export { parseRange } from '@velox/core/internal';
export { StaticErrorCodes } from './errors.ts';

export type { ServeStatic, ServeStaticOptions } from './serve-static.ts';
export type { LiveDirectoryOptions, LiveDirectoryEvents, LiveFile } from './live-directory.ts';
export type { SendFileOptions, SetHeaders } from '@velox/core';
export type { ParsedRange } from '@velox/core/internal';
export type { StaticErrorCode } from './errors.ts';
export type { DotfilesPolicy, SymlinkPolicy } from './directory.ts';
