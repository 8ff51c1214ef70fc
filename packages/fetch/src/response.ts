/**
 * Writes a fetch `Response` through Velox's response: the status and headers (each Set-Cookie
 * on its own line), then the body. A string or bytes body a built-in `Response` was made with is
 * handed to uWS as it is, without reading it through the Response's stream (Node's `Response`
 * keeps it in its internal state, found once by feature detection; where it is not found, the
 * body is read the public way). A `ReadableStream` body is streamed with backpressure
 * (Content-Length when the Response declares one, chunked otherwise); a client that leaves
 * cancels it.
 */
import { Readable } from 'node:stream';
import { PreparedHeader, type Response as VeloxResponse } from '@velox/core';
import { FetchErrorCodes, fetchError } from './errors.ts';
import * as lightHeaderParts from './light-headers.ts';
import * as lightResponseParts from './light-response.ts';

const NativeResponse = globalThis.Response;
const NativeHeaders = globalThis.Headers;

// Module-local copies of what is read per answer: V8 reads an imported binding from its module
// cell on every use, even in optimised code, where a local constant is folded in.
const isLightHeaders = lightHeaderParts.isLightHeaders;
const lightHeaderList = lightHeaderParts.lightHeaderList;
const lightCookies = lightHeaderParts.lightCookies;
const isLightResponse = lightResponseParts.isLightResponse;
const isLightOnly = lightResponseParts.isLightOnly;
const lightStatus = lightResponseParts.lightStatus;
const lightHeaders = lightResponseParts.lightHeaders;
const lightBody = lightResponseParts.lightBody;
const lightStatusText = lightResponseParts.lightStatusText;

// Not an ESM import of node:http (see @velox/core's headers.ts: on Node 22 that loads undici's globals).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Where Node's Response (undici) keeps its state, `{ body: { source, stream, length } | null }`. */
const kState: symbol | undefined = (() => {
  try {
    const probe = new NativeResponse('probe');
    const key = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'state');
    const state = key && (probe as unknown as Record<symbol, { body?: { source?: unknown } }>)[key];
    return state?.body?.source === 'probe' ? key : undefined;
  } catch {
    return undefined;
  }
})();

interface BodyState {
  source: unknown;
  length: number | null;
}

/** Blobs up to this size are read whole and sent in one piece; larger ones are streamed. */
const WHOLE_BLOB = 1024 * 1024;

/** True when the fast path (reading a built-in Response's body source) is available in this Node. */
export const readsResponseSource = kState !== undefined;

/**
 * Sends `response` on `res`; resolves when it was handed to uWS (or the client left). Logs, and
 * cuts the connection, when a streamed body fails halfway.
 * @example
 * ```ts
 * await sendResponse(res, new Response('Hi'));
 * ```
 */
export function sendResponse(res: VeloxResponse, response: Response): void | Promise<void> {
  // A LightResponse nothing materialized (most answers, under serve()) is recognized by its
  // brand first: the walk of instanceof along its prototype chain is only needed for anything
  // else. Kept apart from the rest so that this function stays small enough for V8 to inline into
  // the handler: whole, it ran unoptimized (its early return spends too little of V8's budget
  // for it ever to be compiled), about 400 instructions more per request (fetch-ping, Node 22).
  if (isLightResponse(response) && isLightOnly(response)) return writeLight(res, response);
  return sendOther(res, response);
}

/** Any other Response: a LightResponse made into a built-in one, a built-in one, srvx's. */
function sendOther(res: VeloxResponse, response: Response): void | Promise<void> {
  if (isLightResponse(response)) response = response.nativeResponse();
  else if (!(response instanceof NativeResponse)) {
    throw fetchError(FetchErrorCodes.BAD_RESPONSE, `The fetch handler must return a Response, got ${describe(response)}`);
  }
  const prepared = (response as Partial<Prepares>)._toNodeResponse;
  if (typeof prepared === 'function') return writePrepared(res, prepared.call(response));
  if (res.aborted) {
    cancel(response);
    return;
  }
  res.statusCode = response.status;
  const statusText = response.statusText;
  if (statusText !== '') setReason(res, response.status, statusText);
  let cookies: string[] | undefined;
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') (cookies ??= []).push(value);
    else res.set(name, value);
  }
  if (cookies) res.set('set-cookie', cookies.length === 1 ? cookies[0]! : cookies);

  // A built-in Response's state; undefined for other classes that pass instanceof (srvx's, H3's).
  const internal = kState && (response as unknown as Record<symbol, { body: BodyState | null } | undefined>)[kState];
  const state = internal ? internal.body : undefined;
  if (state === null) {
    res.end();
    return;
  }
  if (state !== undefined && !response.bodyUsed) {
    const source = state.source;
    if (typeof source === 'string' || source instanceof Uint8Array) {
      res.end(source);
      return;
    }
    if (source instanceof Blob && source.size <= WHOLE_BLOB) {
      return source.arrayBuffer().then((bytes) => {
        if (!res.aborted) res.end(new Uint8Array(bytes));
      });
    }
  }
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  const size = state?.length ?? declaredLength(response);
  if (body.locked || response.bodyUsed) {
    throw fetchError(FetchErrorCodes.BAD_RESPONSE, 'The Response body was already read or locked');
  }
  if (res.req.method === 'HEAD') {
    body.cancel().catch(() => {});
    if (size !== null) res.set('content-length', size);
    res.end();
    return;
  }
  return stream(res, body, size);
}

function stream(res: VeloxResponse, body: ReadableStream<Uint8Array>, size: number | null): Promise<void> {
  const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  // Core cuts the connection when the source fails after the head went out, and settles without
  // the error then: it is logged here. Before the head, core's promise rejects and the error path answers 500.
  source.once('error', (err) => {
    if (!res.headersSent) return;
    res.server.logger?.error?.(
      fetchError(FetchErrorCodes.STREAM_FAILED, `The response stream failed after ${res.statusCode} was sent; the connection was cut`, 500, err),
    );
  });
  return res.stream(source, size === null ? {} : { size });
}

/**
 * srvx's protocol (H3 v2 answers with srvx's `NodeResponse` on Node): `_toNodeResponse()` hands
 * over the status, a flat header list and the body as given, without a built-in Response.
 */
interface Prepares {
  _toNodeResponse(): { status: number; statusText?: string; headers: string[]; body: unknown };
}

function writePrepared(res: VeloxResponse, prepared: ReturnType<Prepares['_toNodeResponse']>): void | Promise<void> {
  const { status, statusText, headers, body } = prepared;
  if (res.aborted) {
    if (body instanceof ReadableStream) body.cancel().catch(() => {});
    else if (body instanceof Readable) body.destroy();
    return;
  }
  res.statusCode = status;
  if (typeof statusText === 'string' && statusText !== '') setReason(res, status, statusText);
  let cookies: string[] | undefined;
  let size: number | null = null;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    const value = headers[i + 1]!;
    if (name === 'set-cookie') (cookies ??= []).push(value);
    else {
      if (name === 'content-length' && /^[0-9]{1,15}$/.test(value)) size = Number(value);
      res.set(name, value);
    }
  }
  if (cookies) res.set('set-cookie', cookies.length === 1 ? cookies[0]! : cookies);
  if (body == null) return void res.end();
  if (typeof body === 'string' || body instanceof Uint8Array) return void res.end(body);
  if (body instanceof DataView) return void res.end(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  if (res.req.method === 'HEAD') {
    if (body instanceof ReadableStream) body.cancel().catch(() => {});
    else if (body instanceof Readable) body.destroy();
    res.end();
    return;
  }
  if (body instanceof ReadableStream) return stream(res, body as ReadableStream<Uint8Array>, size);
  if (body instanceof Readable) return res.stream(body, size === null ? {} : { size });
  throw fetchError(FetchErrorCodes.BAD_RESPONSE, `The Response's prepared body is ${describe(body)}, which cannot be sent`);
}

/**
 * The content types apps set most (Hono's `c.text()`, `c.json()`, `c.html()`, the built-in
 * Response's default for a string), checked once: most responses set one of them.
 */
const CONTENT_TYPES = new Map<string, PreparedHeader>(
  ['text/plain;charset=UTF-8', 'text/plain; charset=UTF-8', 'application/json', 'application/json; charset=UTF-8', 'text/html; charset=UTF-8'].map((type) => [
    type,
    new PreparedHeader('content-type', type),
  ]),
);
const TEXT_PLAIN = CONTENT_TYPES.get('text/plain;charset=UTF-8')!;

/** Sets the content type `value` (a string), through its prepared header when it is a common one. */
function setType(res: VeloxResponse, value: string): void {
  const prepared = CONTENT_TYPES.get(value);
  if (prepared !== undefined) res.setPrepared(prepared);
  else res.set('content-type', value);
}

/** A header written before: the last value it had and, once that value came again, its prepared header. */
interface SeenHeader {
  value: string;
  prepared: PreparedHeader | undefined;
}

/** Headers written before, by lower-case name (bounded): most apps set the same few on every answer. */
const seenHeaders = new Map<string, SeenHeader>();
const MAX_SEEN_HEADERS = 256;

/**
 * Sets the header `key` (lower-case) to `value`: through a prepared header when the same name had
 * the same value on an answer before (the name and value were checked then), else checked by
 * `res.set()`. A header whose value changes on every answer (an ETag, say) only costs a lookup more.
 */
function setSeen(res: VeloxResponse, key: string, value: string): void {
  const seen = seenHeaders.get(key);
  if (seen === undefined) {
    res.set(key, value);
    if (seenHeaders.size < MAX_SEEN_HEADERS) seenHeaders.set(key, { value, prepared: undefined });
  } else if (seen.value !== value) {
    res.set(key, value);
    seen.value = value;
    seen.prepared = undefined;
  } else if (seen.prepared !== undefined) {
    res.setPrepared(seen.prepared);
  } else {
    res.set(key, value);
    // Checked just now: kept for the next answers.
    seen.prepared = new PreparedHeader(key, value);
  }
}

/** A LightResponse nothing materialized: its status, headers and body as given. */
function writeLight(res: VeloxResponse, response: lightResponseParts.LightResponse): void {
  if (res.aborted) return;
  const status = lightStatus(response);
  if (status !== 200 || res.statusCode !== 200) res.statusCode = status;
  const statusText = lightStatusText(response);
  if (statusText !== undefined && statusText !== '') setReason(res, status, typeof statusText === 'string' ? statusText : String(statusText));
  const body = lightBody(response);
  let typed = false;
  const headers = lightHeaders(response);
  if (headers !== undefined) {
    // A plain record first (Hono's c.json() and c.html() pass { 'Content-Type': type }): the
    // brand check of LightHeaders misses V8's cache on an object without the brand (about 360
    // instructions per answer, where reading the prototype costs about 110).
    const proto = Object.getPrototypeOf(headers);
    if (proto === Object.prototype || proto === null) typed = writeRecord(res, headers as Record<string, string>);
    else if (isLightHeaders(headers)) {
      // Names lower-case and values checked already: straight from its list.
      const list = lightHeaderList(headers);
      for (let i = 0; i < list.length; i += 2) {
        const name = list[i]!;
        if (name === 'content-type') {
          typed = true;
          setType(res, list[i + 1]!);
        } else setSeen(res, name, list[i + 1]!);
      }
      const cookies = lightCookies(headers);
      if (cookies) res.set('set-cookie', cookies.length === 1 ? cookies[0]! : cookies);
    } else if (headers instanceof NativeHeaders) {
      // A Headers hands out lower-case names and normalized values already.
      let cookies: string[] | undefined;
      for (const [name, value] of headers) {
        if (name === 'set-cookie') (cookies ??= []).push(value);
        else {
          if (name === 'content-type') typed = true;
          res.set(name, value);
        }
      }
      if (cookies) res.set('set-cookie', cookies.length === 1 ? cookies[0]! : cookies);
    } else if (Array.isArray(headers)) {
      let cookies: string[] | undefined;
      for (const [name, value] of headers as Iterable<[string, string]>) {
        const key = name.toLowerCase();
        if (key === 'set-cookie') (cookies ??= []).push(value);
        else {
          if (key === 'content-type') typed = true;
          res.set(key, value.trim());
        }
      }
      if (cookies) res.set('set-cookie', cookies.length === 1 ? cookies[0]! : cookies);
    } else typed = writeRecord(res, headers as Record<string, string>);
  }
  if (body === null) {
    res.end();
    return;
  }
  if (typeof body === 'string') {
    if (!typed) res.setPrepared(TEXT_PLAIN);
    res.end(body);
    return;
  }
  res.end(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/** Characters a reason phrase may not hold (the HTTP reason-phrase production: tab, space, visible ASCII, 0x80–0xFF). */
const NOT_IN_REASON = /[^\t\x20-\x7e\x80-\xff]/;
const ALL_NOT_IN_REASON = /[^\t\x20-\x7e\x80-\xff]/g;

/**
 * A Response's non-empty `statusText` on the status line (`HTTP/1.1 418 Short And Stout`), unless
 * it is the standard phrase of `status`, which the head core prepared already carries. The
 * built-in Response and LightResponse refuse a text that would break the line when they are made;
 * from other classes (srvx's), characters a reason phrase may not hold are dropped, as srvx's own
 * Node adapter drops them, and nothing left means the standard phrase.
 */
function setReason(res: VeloxResponse, status: number, text: string): void {
  if (text === STATUS_CODES[status]) return;
  if (NOT_IN_REASON.test(text)) {
    text = text.replace(ALL_NOT_IN_REASON, '');
    if (text === '' || text === STATUS_CODES[status]) return;
  }
  res.statusMessage = text;
}

/** Sets the headers of a record (`{ name: value }`); true when one of them is the content type. */
function writeRecord(res: VeloxResponse, headers: Record<string, string>): boolean {
  let typed = false;
  for (const name in headers) {
    const value = headers[name];
    // Hono's c.json() and c.html() pass { 'Content-Type': type }.
    const prepared = name === 'Content-Type' && typeof value === 'string' ? CONTENT_TYPES.get(value) : undefined;
    if (prepared !== undefined) {
      typed = true;
      res.setPrepared(prepared);
      continue;
    }
    const key = name.toLowerCase();
    if (key === 'content-type') typed = true;
    res.set(key, String(value).trim());
  }
  return typed;
}

/** The Content-Length the Response declares, when it is a plain number. */
function declaredLength(response: Response): number | null {
  const value = response.headers.get('content-length');
  if (value === null || !/^[0-9]{1,15}$/.test(value)) return null;
  return Number(value);
}

/** Lets go of a body nobody will send (the client left). */
function cancel(response: Response): void {
  const body = response.body;
  if (body && !body.locked) body.cancel().catch(() => {});
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return (value as object).constructor?.name ?? 'an object';
}
