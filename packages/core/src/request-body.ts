/**
 * Reading the request's body: `req.text()`, `buffer()`, `json()`, `urlencoded()` and `stream()`,
 * what they answer when there is no body (or its framing was unsafe), and the check of the
 * framing headers a body starts with. The body itself (uWS's data, backpressure) is body.ts.
 */
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type { HttpResponse } from '@based/uws';
import { As, Body, bodyFraming, isJsonType, quote } from './body.ts';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import { parseQuery } from './query.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { kBody, kConfig, kContentType, kFraming } from './symbols.ts';
import type { Headers, JsonOptions, Query } from './types.ts';

/** @internal `req.text()` and `req.buffer()`: the whole body, up to maxBodyLength. */
export function readBody(req: Request<unknown, unknown>, as: As): Promise<any> {
  const body = req[kBody]();
  if (body) return body.read(req.server[kConfig].maxBodyLength, as);
  return noBody(req, as);
}

/** @internal What `req.json()` does. */
export function readJson(req: Request<unknown, unknown>, options: JsonOptions | undefined): Promise<any> {
  const body = req[kBody]();
  if (body === null) return noBody(req, As.Json);
  if (options?.anyType !== true) {
    // Seen when the body started (or read from the record, if built since).
    const type = req[kContentType](body);
    if (!isJsonType(type)) return Promise.reject(unsupportedType(type));
  }
  return body.read(req.server[kConfig].maxBodyLength, As.Json);
}

/** @internal What `req.urlencoded()` does. */
export async function readUrlencoded(req: Request<unknown, unknown>): Promise<Query> {
  const text: string = await readBody(req, As.Text);
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
  } catch (cause) {
    throw new VeloxError(ErrorCodes.BAD_ENCODING, 'Body has a malformed percent-escape', { status: 400, cause });
  }
  return parseQuery(text);
}

/**
 * Options of `req.stream()`.
 * @example
 * ```ts
 * const options: BodyStreamOptions = { limit: 100 * 1024 * 1024 };
 * await pipeline(req.stream(options), createWriteStream('/srv/upload'));
 * ```
 */
export interface BodyStreamOptions {
  /**
   * Most bytes of body to take, counted as they arrive, whether or not the stream's consumer has
   * read them yet: past it, the stream fails with 413 `VELOX_ERR_BODY_TOO_LARGE` and the
   * connection closes after the answer, as for `maxBodyLength`. So a consumer that stalls (or
   * never reads) cannot make the server keep more than this, in memory or on disk. Default: none.
   */
  limit?: number;
}

/** @internal What `req.stream()` does. */
export function bodyStream(req: Request<unknown, unknown>, options: BodyStreamOptions | undefined): Readable {
  // -1: none (the Body's own sentinel).
  let limit = -1;
  const given = options === undefined ? undefined : options.limit;
  if (given !== undefined && given !== Infinity) {
    if (!(Number.isSafeInteger(given) && given >= 0)) {
      throw invalidOption(`req.stream({ limit }) takes a whole number of bytes (104857600 for 100 MiB), or Infinity for none; got ${String(given)}`);
    }
    limit = given;
  }
  const body = req[kBody]();
  if (!body) {
    const framing = req[kFraming];
    if (framing) {
      const failed = new Readable({ read() {} });
      setImmediate(destroyWith, failed, framing);
      return failed;
    }
    // No body was announced: an empty stream.
    return Readable.from([]);
  }
  return body.stream(limit);
}

/** What a read answers when there is no body to read: unsafe framing, or an empty body. */
function noBody(req: Request<unknown, unknown>, as: As): Promise<any> {
  const framing = req[kFraming];
  if (framing) {
    // Failed from a later turn of the event loop, never inside uWS's callback: uWS (v20.30 and
    // v20.51 alike) drops the "close" of a response ended there when more requests follow in
    // the same read, and would go on to answer the smuggled one. A response still pending
    // when uWS reaches the next request makes uWS close the connection instead; with nothing
    // behind it, the 400 goes out with Connection: close.
    return new Promise((_resolve, reject) => setImmediate(reject, framing));
  }
  if (as === As.Json) return Promise.reject(new VeloxError(ErrorCodes.BAD_JSON, 'Body is empty, expected JSON', { status: 400 }));
  return Promise.resolve(as === As.Text ? '' : Buffer.alloc(0));
}

/**
 * @internal Starts reading the body that the framing headers announce, from the headers record
 * when it was built, else from the copied [name, value, …] list: a Body, null when there is
 * none, or why the framing is unsafe (what {@link bodyFraming} answers). Every line counts: uWS
 * frames the body by the first Content-Length line (an empty one as no body) and takes any
 * non-empty Transfer-Encoding for chunked, where a proxy in front may read the message otherwise
 * (request smuggling). Such a request is answered 400 and its connection closed. (uWS itself
 * refuses both framing headers non-empty together, before any route.) The same pass finds the
 * Content-Type, which the Body keeps for `req.json()`'s check.
 */
export function openBody(ures: HttpResponse, res: Response, headers: Headers | undefined, raw: string[] | undefined): Body | null | string {
  if (headers) return openFromRecord(ures, res, headers);
  let length: string | undefined;
  let coding: string | undefined;
  let type: string | undefined;
  let conflict = false;
  for (let i = 0; i < raw!.length; i += 2) {
    const key = raw![i]!;
    // By length first: uWS's names are new strings, and comparing one with a literal of another
    // length is a call into the engine for nothing.
    switch (key.length) {
      case 12:
        if (type === undefined && key === 'content-type') type = raw![i + 1]!;
        break;
      case 14:
        if (key === 'content-length') {
          const value = raw![i + 1]!;
          if (length === undefined) length = value;
          else if (value !== length) conflict = true;
        }
        break;
      case 17:
        if (key === 'transfer-encoding') {
          const value = raw![i + 1]!;
          coding = coding === undefined ? value : `${coding}, ${value}`;
        }
        break;
    }
  }
  return open(ures, res, bodyFraming(length, coding, conflict), type);
}

/** {@link openBody} from the headers record, where repeated lines are joined. */
function openFromRecord(ures: HttpResponse, res: Response, headers: Headers): Body | null | string {
  let length = headers['content-length'];
  let conflict = false;
  if (length !== undefined && length.indexOf(',') >= 0) {
    // Lines joined into the record: a list of one value repeated is that value.
    const first = length.slice(0, length.indexOf(',')).trim();
    conflict = length.split(',').some((part) => part.trim() !== first);
    length = first;
  }
  return open(ures, res, bodyFraming(length, headers['transfer-encoding'], conflict), headers['content-type']);
}

function open(ures: HttpResponse, res: Response, framing: number | string, type: string | undefined): Body | null | string {
  if (typeof framing === 'string') return framing;
  return framing !== 0 ? new Body(ures, res, framing, type) : null;
}

function destroyWith(stream: Readable, err: Error): void {
  stream.destroy(err);
}

function unsupportedType(type: string | undefined): VeloxError {
  return new VeloxError(
    ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    `Expected a JSON body with Content-Type: application/json, got ${type === undefined || type === '' ? 'no Content-Type' : quote(type)}`,
    { status: 415 },
  );
}
