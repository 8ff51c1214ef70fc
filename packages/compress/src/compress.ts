/**
 * The middleware: it hands every response to one body transform made by the factory (core's
 * `res.transformBody()`), which decides at head time, when status and headers are final, whether
 * and how the body is compressed.
 */
import { Buffer } from 'node:buffer';
import { type BodyStream, type BodyTransform, type Middleware, PreparedHeader, type Response } from '@velox/core';
import { ZlibBody } from './body-stream.ts';
import { IDENTITY_REFUSED, INDEX, Negotiator, NONE } from './negotiate.ts';
import { type CompressOptions, settingsOf } from './options.ts';

const VARY = new PreparedHeader('Vary', 'Accept-Encoding');
/** A Vary value that already covers Accept-Encoding: the field itself, or `*`. */
const VARY_COVERS = /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i;
const NO_TRANSFORM = /(?:^|[\s,])no-transform(?:$|[\s,=])/i;

/** Adds Accept-Encoding to Vary, once, whatever another middleware put there. */
function varyOnEncoding(res: Response): void {
  const vary = res.get('vary');
  if (vary === undefined) {
    res.setPrepared(VARY);
    return;
  }
  const text = typeof vary === 'string' ? vary : vary.join(', ');
  if (VARY_COVERS.test(text)) return;
  res.set('vary', text.trim() === '' ? 'Accept-Encoding' : `${text}, Accept-Encoding`);
}

/**
 * The body's size in bytes, exact where a boundary depends on it: a string's UTF-8 length is
 * between its length and three times it, so it is counted only when a threshold falls in that range.
 */
function sizeOf(body: string | Uint8Array, threshold: number, syncThreshold: number): number {
  if (typeof body !== 'string') return body.byteLength;
  const chars = body.length;
  const most = chars * 3;
  if ((chars < threshold && most >= threshold) || (chars <= syncThreshold && most > syncThreshold)) return Buffer.byteLength(body);
  return chars;
}

/**
 * Compresses responses: zstd, brotli, gzip or deflate, negotiated by the q-values of the
 * request's Accept-Encoding (a tie goes to br, then zstd, gzip, deflate, or to the order of
 * `encodings`). Every way of answering is covered (`send`, `json`, `html`, `write`/`end`,
 * `stream`, `sendPrepared`, error answers; `sse` with `{ sse: true }`). Bodies up to
 * `syncThreshold` (8 KiB) are compressed at once with their exact Content-Length; larger ones and
 * streams through zlib's streams, chunked, with a flush after every write. `Vary: Accept-Encoding`
 * goes on every answer whose type could be compressed. Not compressed: bodies under `threshold`
 * (1 KiB), HEAD, 1xx/204/304, 206 and Content-Range answers, bodies that carry a Content-Encoding,
 * `Cache-Control: no-transform`, types mime-db does not mark compressible, `text/event-stream`
 * unless `sse: true`. A bad option throws `VELOX_ERR_COMPRESS_INVALID_OPTION` here.
 *
 * One compressor per response: the first `compress()` that runs for a request owns its body; a
 * later one, or one on a response whose body another plugin transforms, steps aside.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { compress } from '@velox/compress';
 *
 * const app = new Server();
 * app.use(compress({ threshold: 1024 }));
 * app.get('/users', (req, res) => res.json(users)); // gzip, br or zstd as the client asks
 * ```
 */
export function compress(options?: CompressOptions): Middleware {
  const settings = settingsOf(options);
  const { threshold, syncThreshold, codecs, types, filter } = settings;
  const negotiator = new Negotiator(settings.codings);

  const transform: BodyTransform = (res, body) => {
    const status = res.statusCode;
    if (status < 200 || status === 204 || status === 206) return undefined;
    const type = res.get('content-type');
    if (typeof type !== 'string' || !types.allows(type)) return undefined;
    if (res.get('content-encoding') !== undefined || res.get('content-range') !== undefined) return undefined;
    const cacheControl = res.get('cache-control');
    if (cacheControl !== undefined && NO_TRANSFORM.test(typeof cacheControl === 'string' ? cacheControl : cacheControl.join(','))) return undefined;
    const req = res.req;
    if (filter !== undefined && !filter(req, res)) return undefined;
    // From here the answer depends on Accept-Encoding, whether compressed this time or not.
    varyOnEncoding(res);
    if (status === 304 || req.method === 'HEAD') return undefined;

    const choice = negotiator.choose(req.firstHeader('accept-encoding'));
    const index = choice & INDEX;
    if (index === NONE) return undefined;
    const refused = (choice & IDENTITY_REFUSED) !== 0;
    let size = -1;
    if (body !== null) size = sizeOf(body, threshold, syncThreshold);
    else {
      const length = res.get('content-length');
      if (typeof length === 'string') size = Number(length);
    }
    if (size >= 0 && size < threshold && !refused) return undefined;

    const codec = codecs[index]!;
    let out: Uint8Array | BodyStream;
    if (body !== null && size <= syncThreshold) {
      out = codec.sync(body);
      // Not worth it (random bytes under a compressible type): the original, unless identity is
      // refused. `size` may be a string's length in characters, a lower bound: count bytes then.
      if (!refused && out.byteLength >= size && (typeof body !== 'string' || out.byteLength >= Buffer.byteLength(body))) return undefined;
    } else out = new ZlibBody(codec, body === null);

    res.setPrepared(codec.header);
    const etag = res.get('etag');
    if (typeof etag === 'string' && !etag.startsWith('W/')) res.set('etag', `W/${etag}`);
    return out;
  };

  return function compressMiddleware(req, res, next) {
    if (res.bodyTransform === undefined) res.transformBody(transform);
    return next();
  };
}
