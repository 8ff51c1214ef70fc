/**
 * Headers: for responses, the checks every header name and value passes (`checkName`,
 * `checkValue`), headers as a flat list (name, value, name, value…) and the per-route cache of
 * the response head last written; for requests, the copy of uWS's headers and the record
 * `req.headers` is built from it. A list costs less than a keyed record here: a response holds a few
 * headers, names are compared by identity (they come out of one table of checked names), and a
 * push never changes an object's hidden class.
 */
import { Buffer } from 'node:buffer';
import type { HttpRequest, HttpResponse } from '@based/uws';
import { Bag, internalized } from './bag.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Headers } from './types.ts';

// STATUS_CODES is read from the CommonJS module: an ESM import of node:http makes Node 22 read every
// one of its exports for the module's namespace, WebSocket, CloseEvent and MessageEvent among them,
// whose getters load undici (about 1.7 MB of heap kept for good; Node 20 has no such getters).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/**
 * One header's value: a string, or a frozen list for a header sent on several lines.
 * @example
 * ```ts
 * const links: HeaderValue = ['</a.css>; rel=preload', '</b.js>; rel=preload'];
 * res.set('link', links);
 * ```
 */
export type HeaderValue = string | string[];
/** Names (lower-case, checked) at even positions, their values after them. */
export type HeaderList = HeaderValue[];

/**
 * Where `name` sits in `list`, or -1. Lengths are compared first: a string compare V8 cannot
 * settle by identity is a call into its StringEqual builtin, and most names differ in length
 * (a list of twenty headers, missed: some 40 such calls a lookup fewer).
 */
export function indexOfHeader(list: HeaderList, name: string): number {
  const length = name.length;
  for (let i = 0; i < list.length; i += 2) {
    const key = list[i] as string;
    if (key.length === length && key === name) return i;
  }
  return -1;
}

/**
 * The header list of every response whose only header is the content type json() set, shared:
 * one object fewer per response, and a route's HeadCache knows it by identity. Never changed in
 * place: putHeader and removeHeader (response-write.ts) give a response its own copy first.
 */
export const JSON_ONLY: HeaderList = ['content-type', 'application/json; charset=utf-8'];

/**
 * Headers uWS writes itself: the length or the chunking from what it is given to send, and Date
 * on every answer (uWS has no switch for it). One the app set is never written: the answer would
 * carry two lines.
 */
function writtenByUws(name: HeaderValue): boolean {
  return name === 'content-length' || name === 'transfer-encoding' || name === 'date';
}

/**
 * The head (status line and header lines) a route wrote last. Each uWS call that takes a string
 * converts it in C++, and lines joined into one string must be flattened first: together about
 * a thousand instructions per response. Most responses of a route carry the same status and
 * headers as the one before (a content type and a few fixed headers), so the head is kept, and
 * from its second use on it goes to uWS as bytes encoded once.
 *
 * The whole head goes out in one writeStatus call: uWS writes `HTTP/1.1 `, the text it is given
 * and CRLF, so a status text that carries the header lines makes the same bytes as a writeHeader
 * call for each. That is safe because names are checked tokens and values never hold CR or LF
 * (Response.setHeader refuses them).
 */
export class HeadCache {
  #status = 0;
  /** The list last written, without the headers uWS writes itself. */
  #list: HeaderList = [];
  #head: string | ArrayBuffer = '';
  /** The `extra` lines of the head last written. */
  #extra = '';
  /**
   * Where the encoded head ends after its status line (0) and after each header of #list (n / 2 + 1):
   * byte offsets, each just before the CRLF that would follow. Made with the bytes (null until then).
   */
  #ends: number[] | null = null;
  /** Views of the encoded head up to one of #ends, made on first use, by the number of headers kept. */
  #views: Array<Uint8Array | undefined> = [];

  /**
   * Writes the status line and the headers in `list` to `ures` (the caller has corked); with a
   * `reason` of its own the line carries it, and the head is built for this response alone.
   * `extra` is header lines (each after a CRLF) the server adds after the app's: the
   * `keepAliveHeader` option's `Connection` line.
   */
  write(ures: HttpResponse, status: number, list: HeaderList | null, reason?: string, extra = ''): void {
    if (reason === undefined && list !== null && status === this.#status && extra === this.#extra) {
      // The usual head: the same as the last one (encoded from its second use), or the same up
      // to a few headers at its end. The rest is kept apart, so that this stays small enough for
      // V8 to inline.
      const part = this.#part(list);
      if (part < 0) {
        if (typeof this.#head === 'string') this.#encode();
        ures.writeStatus(this.#head);
        return;
      }
      if (extra === '' && this.#writeShared(ures, list, part)) return;
    }
    this.#writeOther(ures, status, list, reason, extra);
  }

  #writeOther(ures: HttpResponse, status: number, list: HeaderList | null, reason: string | undefined, extra: string): void {
    if (reason !== undefined) {
      ures.writeStatus(`${status} ${reason}${list === null ? '' : headerLines(list, null)}${extra}`);
      return;
    }
    if (list === null) {
      if (extra === '') {
        // uWS writes `200 OK` itself when nothing else was written.
        if (status !== 200) ures.writeStatus(statusLine(status));
        return;
      }
      list = NO_HEADERS;
      if (status === this.#status && extra === this.#extra && this.#part(list) < 0) {
        if (typeof this.#head === 'string') this.#encode();
        ures.writeStatus(this.#head);
        return;
      }
    }
    const kept: HeaderList = [];
    const head = statusLine(status) + headerLines(list, kept) + extra;
    this.#status = status;
    this.#extra = extra;
    // The shared list never changes, so it is its own record (and is then matched by identity).
    this.#list = list === JSON_ONLY ? list : kept;
    this.#head = head;
    this.#ends = null;
    this.#views.length = 0;
    ures.writeStatus(head);
  }

  /** Encodes the head kept, and notes where each of its lines ends (for #writeShared). */
  #encode(): void {
    const text = this.#head as string;
    this.#head = encode(text);
    if (this.#extra !== '') return;
    const list = this.#list;
    const ends: number[] = [Buffer.byteLength(statusLine(this.#status))];
    for (let i = 0; i < list.length; i += 2) {
      const value = list[i + 1]!;
      let bytes = 0;
      for (const line of typeof value === 'string' ? [value] : value) bytes += 4 + Buffer.byteLength(list[i] as string) + Buffer.byteLength(line);
      ends.push(ends[ends.length - 1]! + bytes);
    }
    this.#ends = ends;
  }

  /**
   * A head that starts with most of the headers of the one kept, then differs (a request id, the
   * counts of a rate limit: headers whose values change with every response, after a block of
   * fixed ones): the bytes kept up to where they differ, then the rest as header lines in one
   * writeHeader call. Building and converting the whole head as a string each time cost several
   * thousand instructions (and its garbage) for a kilobyte of security headers. `part` is where
   * `list` parts from the list kept (#part), #shared how many headers they share before it.
   * Returns false when less than half of the headers are shared: the head is then built anew and
   * kept instead.
   */
  #writeShared(ures: HttpResponse, list: HeaderList, part: number): boolean {
    const shared = this.#shared;
    if (shared < 2 || shared * 4 < list.length) return false;
    if (typeof this.#head === 'string') this.#encode();
    const ends = this.#ends!;
    let view = this.#views[shared];
    if (view === undefined) view = this.#views[shared] = new Uint8Array(this.#head as ArrayBuffer, 0, ends[shared]!);
    const rest = headerLines(part === 0 ? list : list.slice(part), null);
    ures.writeStatus(view);
    if (rest === '') return true;
    // `\r\nname: value…`: uWS writes the name, `: `, the value and CRLF, so the name of the first
    // line goes as the name, and everything after its `: ` as the value.
    const colon = rest.indexOf(':');
    ures.writeHeader(rest.slice(2, colon), rest.slice(colon + 2));
    return true;
  }

  /** Headers the list last written and the one compared by #part share, from the start. */
  #shared = 0;

  /**
   * Compares `list` with the list last written, in one walk: -1 when they hold the same headers;
   * else the (even) index in `list` where they part, with #shared set to how many headers they
   * share before it.
   */
  #part(list: HeaderList): number {
    const last = this.#list;
    if (list === last) return -1;
    let j = 0;
    let i = 0;
    for (; i < list.length; i += 2) {
      const key = list[i]!;
      if (writtenByUws(key)) continue;
      if (last[j] !== key || last[j + 1] !== list[i + 1]) break;
      j += 2;
    }
    if (i === list.length && j === last.length) return -1;
    this.#shared = j / 2;
    return i;
  }
}

const NO_HEADERS: HeaderList = [];

/** `list` without the header `key` (a copy; the response keeps its own). */
export function withoutHeader(list: HeaderList, key: string): HeaderList {
  const kept: HeaderList = [];
  for (let i = 0; i < list.length; i += 2) if (list[i] !== key) kept.push(list[i]!, list[i + 1]!);
  return kept;
}

/**
 * The header lines of `list` (each after a CRLF), without those uWS writes itself; what they
 * hold is pushed to `kept` when given.
 */
function headerLines(list: HeaderList, kept: HeaderList | null): string {
  let lines = '';
  for (let i = 0; i < list.length; i += 2) {
    const key = list[i] as string;
    if (writtenByUws(key)) continue;
    const value = list[i + 1]!;
    kept?.push(key, value);
    if (typeof value === 'string') lines += `\r\n${key}: ${value}`;
    else for (const line of value) lines += `\r\n${key}: ${line}`;
  }
  return lines;
}

/**
 * UTF-8 bytes in an ArrayBuffer of their own: uWS reads an ArrayBuffer with one call into V8, a
 * Buffer (a view, perhaps into a shared pool) with three.
 */
export function encode(text: string): ArrayBuffer {
  const bytes = Buffer.from(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}

const STATUS_LINES: string[] = [];
for (const code in STATUS_CODES) STATUS_LINES[Number(code)] = `${code} ${STATUS_CODES[code]}`;

/** `404 Not Found`; a code Node has no text for gets `Unknown`. */
export function statusLine(code: number): string {
  return STATUS_LINES[code] ?? `${code} Unknown`;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// Header names repeat from request to request: remember the ones already checked.
const checkedNames = new Map<string, string>();

/** Checks a header name (an HTTP token) and returns it lower-case. */
export function checkName(name: string): string {
  // Kept this small so that V8 inlines it into its callers: as one function, the hot path (a
  // name checked before) ran in the interpreter on Node 22, called from the optimized handler
  // (that call was about 390 instructions per res.set() under callgrind; the benchmark's query
  // route, one res.set() and a send(), runs about 200 fewer with this split).
  return checkedNames.get(name) ?? checkNewName(name);
}

/** Checks a name not seen before, and remembers it. */
function checkNewName(name: string): string {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new VeloxError(ErrorCodes.INVALID_HEADER, `Invalid header name: ${JSON.stringify(name)}`, { status: 500 });
  }
  // Interned: header list lookups and compares with literals ('content-length') compare pointers.
  const lower = internalized(name.toLowerCase());
  if (checkedNames.size < 1000) checkedNames.set(name, lower);
  return lower;
}

/**
 * A header name lower-case, for looking it up: the very string `checkName` stored for a name set
 * before, so the lookup compares strings by identity instead of by their characters.
 */
export function lowerName(name: string): string {
  return checkedNames.get(name) ?? lowerNewName(name);
}

/** Names looked up (`res.get('etag')`) but never set, lower-case: a plugin asks for the same few on every response. */
const lookedUpNames = new Map<string, string>();

function lowerNewName(name: string): string {
  let lower = lookedUpNames.get(name);
  if (lower === undefined) {
    lower = internalized(name.toLowerCase());
    if (lookedUpNames.size < 1000) lookedUpNames.set(name, lower);
  }
  return lower;
}

/** Checks a reason phrase (`res.statusMessage`): text without CR, LF or another control character. */
export function checkReason(text: string): string {
  if (typeof text !== 'string' || !safeValue(text)) {
    throw new VeloxError(ErrorCodes.INVALID_HEADER, `Invalid status message: ${JSON.stringify(text)}: it contains CR, LF or another control character`, {
      status: 500,
    });
  }
  return text;
}

/** True when a value holds no control character but tab (so no CR or LF). */
function safeValue(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return false;
  }
  return true;
}

/** Checks a header value (no CR, LF or other control character). */
export function checkValue(name: string, value: string | number): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !safeValue(text)) {
    throw new VeloxError(ErrorCodes.INVALID_HEADER, `Invalid value for header ${name}: it contains CR, LF or another control character`, {
      status: 500,
    });
  }
  return text;
}

let collecting: string[] | undefined;
/** uWS's forEach callback: one module-level function, so copying headers allocates no closure. */
function collect(key: string, value: string): void {
  collecting!.push(key, value);
}

/**
 * @internal Every header of uWS's request as a flat [name, value, …] list: the cheapest copy
 * (one push per header), made when the handler goes async.
 */
export function copyHeaderList(ureq: HttpRequest): string[] {
  const raw: string[] = [];
  collecting = raw;
  ureq.forEach(collect);
  collecting = undefined;
  return raw;
}

/** @internal `req.headers` from the copied list: repeated headers joined (Cookie with `; `, others with `, `). */
export function headerRecord(raw: string[]): Headers {
  const headers = new Bag<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    const value = raw[i + 1]!;
    const prev = headers[key];
    headers[key] = prev === undefined ? value : `${prev}${key === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}
