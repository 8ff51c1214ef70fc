/**
 * The only file that knows about mime-types: content types by file name, with `charset=utf-8`
 * for text, and which types are worth compressing.
 */
import mime from 'mime-types';

const OCTET = 'application/octet-stream';
const COMPRESSIBLE = /^text\/|[+/](?:json|xml|javascript|ecmascript|x-javascript|wasm|manifest\+json)$|^image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)$|^font\/(?:ttf|otf)$|^application\/(?:x-font-ttf|vnd\.ms-fontobject|rtf|x-sh)$/;

/** The Content-Type for a file name: `text/css; charset=utf-8`, `image/png`, or `application/octet-stream`. */
export function contentTypeOf(fileName: string): string {
  const type = mime.lookup(fileName);
  if (type === false) return OCTET;
  return mime.contentType(type) || type;
}

/** Whether a content type (with or without parameters) is text-like enough to compress. */
export function isCompressible(contentType: string): boolean {
  const semi = contentType.indexOf(';');
  return COMPRESSIBLE.test((semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase());
}
