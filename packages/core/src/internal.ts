/**
 * `@velox/core/internal`: what Velox's own packages build on and applications need not see. The
 * file-sending code behind `res.sendFile` lives here once, and `@velox/static` sends its files
 * with it. These exports change with core, without the semver promise of `@velox/core`'s own
 * surface: the packages that import them take core as a peer dependency with a range they are
 * tested against. Applications use `res.sendFile`, `res.download` and `@velox/static` instead.
 */
export {
  send,
  sendFile,
  parseRange,
  representation,
  diskData,
  cacheControlOf,
  strongEtag,
  weakEtag,
  hasDotSegment,
  MAX_RANGES,
  FileData,
} from './send-file.ts';
export { coreFileErrors, fileError, fileFailure, openSettled, readSettled, sameVersion } from './file-read.ts';
export { fileType } from './express-libs.ts';

export type { Representation, Negotiable, SendConfig, ParsedRange, SendFileOptions, SetHeaders } from './send-file.ts';
export type { FileErrorCodes, FileFailure, OpenFile, ReadFile } from './file-read.ts';
