/**
 * @velox/static: files for Velox. A live directory of static files, served from memory as
 * native uWebSockets.js routes (`serveStatic`, `LiveDirectory`), and one file from disk for
 * routes of your own (`sendFile`, and `res.sendFile` / `res.download` with the `sendFiles`
 * plugin), all with ETags, conditional requests and ranges.
 */
export { serveStatic } from './serve-static.ts';
export { LiveDirectory } from './live-directory.ts';
export { sendFile } from './send-file.ts';
export { sendFiles } from './send-files.ts';
export { parseRange } from './range.ts';
export { StaticErrorCodes } from './errors.ts';

export type { ServeStatic, ServeStaticOptions } from './serve-static.ts';
export type { LiveDirectoryOptions, LiveDirectoryEvents, LiveFile } from './live-directory.ts';
export type { SendFileOptions } from './send-file.ts';
export type { SendFileCallback } from './send-files.ts';
export type { SetHeaders } from './send.ts';
export type { ParsedRange } from './range.ts';
export type { StaticErrorCode } from './errors.ts';
export type { DotfilesPolicy, SymlinkPolicy } from './directory.ts';
