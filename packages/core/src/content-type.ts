/**
 * Velox's one content-type table: the short names `res.type()` takes (`json`, `html`, `form`…)
 * and, behind them, the mime-types database for every file extension. This is the one file of
 * core that imports `mime-types`; core, `@velox/static` and the rest ask {@link contentType} and
 * {@link fileContentType}, so the table can change in one place.
 */
import mime from 'mime-types';

/** @internal The short names of `res.type()` and core's own answers, with their Content-Type. */
export const TYPES: Readonly<Record<string, string>> = Object.freeze({
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  form: 'application/x-www-form-urlencoded',
  bin: 'application/octet-stream',
  wasm: 'application/wasm',
  events: 'text/event-stream',
});

/**
 * The Content-Type value for a MIME type, a short name or a file extension: `'json'`, `'.png'`,
 * `'html'`, `'form'`, `'events'`, `'text/html'`. Text types get `; charset=utf-8`. A MIME type
 * is returned as it is, with a charset added when the table knows one; a name nobody knows gives
 * `undefined`. For a file name or path, use {@link fileContentType}.
 *
 * @example
 * ```ts
 * import { contentType } from '@velox/core';
 * contentType('json'); // 'application/json; charset=utf-8'
 * contentType('.png'); // 'image/png'
 * contentType('text/html'); // 'text/html; charset=utf-8'
 * contentType('no-such-thing'); // undefined
 * ```
 */
export function contentType(typeOrName: string): string | undefined {
  if (typeof typeOrName !== 'string' || typeOrName === '') return undefined;
  const short = typeOrName.charCodeAt(0) === 46 ? typeOrName.slice(1) : typeOrName;
  const known = TYPES[short];
  if (known !== undefined) return known;
  return mime.contentType(typeOrName) || undefined;
}

/**
 * The Content-Type value for a file, by its name's extension (case does not matter): text types
 * get `; charset=utf-8`; a name without an extension the table knows gives `undefined` (a file
 * server then sends `application/octet-stream`).
 *
 * @example
 * ```ts
 * import { fileContentType } from '@velox/core';
 * fileContentType('site/app.css'); // 'text/css; charset=utf-8'
 * fileContentType('/srv/Report.PDF'); // 'application/pdf'
 * fileContentType('LICENSE'); // undefined
 * ```
 */
export function fileContentType(path: string): string | undefined {
  if (typeof path !== 'string') return undefined;
  const type = mime.lookup(path);
  if (type === false) return undefined;
  return mime.contentType(type) || type;
}
