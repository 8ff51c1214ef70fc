/**
 * The response's write path: the one place that calls uWS's cork, end, endWithoutBody, tryEnd,
 * write, onWritable and close for a response, and the header list it writes from. Plain functions
 * of the response, so that response.ts keeps the class's public methods (and the few internal ones
 * the lifecycle calls): the state they share lives in symbol-keyed fields of the response
 * (symbols.ts), which the class declares and initialises, so every response keeps one hidden class
 * and nothing more is allocated per request.
 */
import { Buffer } from 'node:buffer';
import type { us_socket_context_t } from '@based/uws';
import { Bag } from './bag.ts';
import type { Hold } from './before-head.ts';
import type { BodySink, BodyStream, BodyTransform } from './body-transform.ts';
import { refuseRest } from './body.ts';
import { ErrorCodes, headersSent, VeloxError } from './errors.ts';
import { checkName, checkValue, type HeaderList, type HeaderValue, indexOfHeader, JSON_ONLY, withoutHeader } from './headers.ts';
import type { PreparedHead, PreparedHeader } from './prepared.ts';
import type { Response } from './response.ts';
import * as symbols from './symbols.ts';

// The symbols as module-local constants. V8 (Node 20) reads an imported binding from its module
// cell on every use, even in optimised code (a load and a check: some 5 to 20 instructions each
// under callgrind), while a module-local constant is folded into the code: `res[kPhase]` then
// costs what a private field `this.#phase` did. response.ts does the same with what it uses here.
const kAbort: typeof symbols.kAbort = symbols.kAbort;
const kClose: typeof symbols.kClose = symbols.kClose;
const kCloseAsked: typeof symbols.kCloseAsked = symbols.kCloseAsked;
const kContext: typeof symbols.kContext = symbols.kContext;
const kDeclared: typeof symbols.kDeclared = symbols.kDeclared;
const kEnd: typeof symbols.kEnd = symbols.kEnd;
const kHasListeners: typeof symbols.kHasListeners = symbols.kHasListeners;
const kHeaders: typeof symbols.kHeaders = symbols.kHeaders;
const kHeadersSent: typeof symbols.kHeadersSent = symbols.kHeadersSent;
const kHeads: typeof symbols.kHeads = symbols.kHeads;
const kHold: typeof symbols.kHold = symbols.kHold;
const kHooked: typeof symbols.kHooked = symbols.kHooked;
const kIsHead: typeof symbols.kIsHead = symbols.kIsHead;
const kKeepAddress: typeof symbols.kKeepAddress = symbols.kKeepAddress;
const kLife: typeof symbols.kLife = symbols.kLife;
const kOnWritable: typeof symbols.kOnWritable = symbols.kOnWritable;
const kOverflowed: typeof symbols.kOverflowed = symbols.kOverflowed;
const kPhase: typeof symbols.kPhase = symbols.kPhase;
const kReason: typeof symbols.kReason = symbols.kReason;
const kUnreadBody: typeof symbols.kUnreadBody = symbols.kUnreadBody;
const kUres: typeof symbols.kUres = symbols.kUres;

/** Where a response is: whether a write must cork, and whether it may write at all. */
export enum Phase {
  /** Inside uWS's callback: uWS has corked the socket for us. */
  Sync = 0,
  /** After the callback returned: every write must cork. */
  Async = 1,
  Done = 2,
  Aborted = 3,
}

/** The value of a header set so far, by its lower-case name. */
export function headerValue(res: Response, key: string): HeaderValue | undefined {
  const list = res[kHeaders];
  if (list === null) return undefined;
  const i = indexOfHeader(list, key);
  return i < 0 ? undefined : list[i + 1];
}

/** Stores a checked header; one already set is replaced only when `replace` is true. */
export function putHeader(res: Response, key: string, value: HeaderValue, replace: boolean): void {
  let list = res[kHeaders];
  if (list === null) {
    res[kHeaders] = [key, value];
    return;
  }
  const i = indexOfHeader(list, key);
  if (i >= 0) {
    if (!replace) return;
    if (list === JSON_ONLY) list = res[kHeaders] = list.slice();
    list[i + 1] = value;
  } else if (list.length === 2) {
    // The second header (most often the content type send() adds to one the app set): a new list
    // of four. A push would give the list storage for 19 entries, copied over (~170 bytes).
    res[kHeaders] = [list[0]!, list[1]!, key, value];
  } else list.push(key, value);
}

/** A list of prepared headers flattened once: the list as it was then (to see a change), its [key, value…] form, its keys. */
interface FlatBlock {
  headers: readonly PreparedHeader[];
  flat: HeaderList;
  keys: Set<string>;
}

const flatBlocks = new WeakMap<readonly PreparedHeader[], FlatBlock>();

/**
 * The flat form of a list of prepared headers, made on its first use and kept while the list
 * holds the same headers (a list changed in place is flattened again). A name twice in the list
 * keeps its first place and the later value, as set() one by one would leave.
 */
function flatBlock(headers: readonly PreparedHeader[]): FlatBlock {
  const known = flatBlocks.get(headers);
  if (known !== undefined && sameHeaders(known.headers, headers)) return known;
  const flat: HeaderList = [];
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i]!;
    const at = indexOfHeader(flat, header.key);
    if (at >= 0) flat[at + 1] = header.value;
    else flat.push(header.key, header.value);
  }
  const block: FlatBlock = { headers: headers.slice(), flat, keys: new Set(flat.filter((_, i) => i % 2 === 0) as string[]) };
  flatBlocks.set(headers, block);
  return block;
}

function sameHeaders(a: readonly PreparedHeader[], b: readonly PreparedHeader[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `res.setPrepared(list)`: every header of the list, replacing those set. The list is flattened
 * once (flatBlock): a response with no header takes a copy of it, one whose headers are not in
 * it gets it appended in one step; only a name in both goes header by header.
 */
export function setAllPrepared(res: Response, headers: readonly PreparedHeader[]): void {
  const block = flatBlock(headers);
  const list = res[kHeaders];
  if (list === null) {
    res[kHeaders] = block.flat.slice();
    return;
  }
  const keys = block.keys;
  for (let i = 0; i < list.length; i += 2) {
    if (keys.has(list[i] as string)) {
      for (let j = 0; j < headers.length; j++) putHeader(res, headers[j]!.key, headers[j]!.value, true);
      return;
    }
  }
  res[kHeaders] = list.concat(block.flat);
}

/** All headers set so far, as a record. */
export function headerRecord(res: Response): Record<string, HeaderValue> {
  const out = new Bag<HeaderValue>();
  const list = res[kHeaders] ?? [];
  for (let i = 0; i < list.length; i += 2) out[list[i] as string] = list[i + 1]!;
  return out;
}

/** Removes a header, by its lower-case name. */
export function removeHeader(res: Response, key: string): void {
  let list = res[kHeaders];
  const i = list === null ? -1 : indexOfHeader(list, key);
  if (i < 0) return;
  if (list === JSON_ONLY) list = res[kHeaders] = list.slice();
  list!.splice(i, 2);
}

/** Sets one header, checked. */
export function setHeader(res: Response, name: string, value: HeaderValue | number): void {
  if (res[kHeadersSent]) throw headersSent();
  const key = checkName(name);
  // Arrays are stored frozen: get() and getHeaders() hand them out, and a value pushed into one
  // later would reach the wire unchecked (all headers are joined into one uWS call).
  const checked = Array.isArray(value) ? (Object.freeze(value.map((v) => checkValue(name, v))) as string[]) : checkValue(name, value);
  putHeader(res, key, checked, true);
  // As on Node, an app that says `Connection: close` gets it: the connection closes after the response.
  if (key === 'connection' && CLOSE_TOKEN.test(String(checked))) res[kClose] = true;
}

const CLOSE_TOKEN = /(?:^|[\s,])close(?:$|[\s,])/i;

/** Records the Content-Length of a body sent whole, unless the status has no body or one is set. */
export function noteLength(res: Response, body: string | Uint8Array | ArrayBuffer): void {
  const status = res.statusCode;
  if (status === 204 || status === 304 || status < 200 || res.hasHeader('content-length')) return;
  setHeader(res, 'content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
}

/** What `res.atomic()` does: runs `fn` corked, unless uWS has corked the socket already. */
export function corked<T>(res: Response, fn: () => T): T {
  if (res[kPhase] === Phase.Sync) return fn();
  if (res[kPhase] === Phase.Aborted) return undefined as T;
  let result: T;
  res[kPhase] = Phase.Sync; // nested atomic() calls run inside this cork
  try {
    res[kUres].cork(() => {
      result = fn();
    });
  } finally {
    if (res[kPhase] === Phase.Sync) res[kPhase] = Phase.Async;
  }
  return result!;
}

/** What `res.write()` does (Node's signatures: write(chunk, cb), write(chunk, encoding, cb)). */
export function writeChunk(
  res: Response,
  chunk: string | Uint8Array,
  encoding?: BufferEncoding | ((err?: Error | null) => void),
  callback?: (err?: Error | null) => void,
): boolean {
  const phase = res[kPhase];
  if (phase === Phase.Aborted) return false;
  if (phase === Phase.Done) throw headersSent();
  if (typeof encoding === 'function') callback = encoding;
  else if (typeof chunk === 'string' && encoding && encoding !== 'utf8' && encoding !== 'utf-8') chunk = Buffer.from(chunk, encoding);
  if (callback) queueMicrotask(callback);
  if (res[kHold]?.defer((go) => go && res.write(chunk) && res.emit('drain'), false)) return false;
  if (typeof chunk !== 'string' && chunk.byteLength === 0) return true;
  if (chunk === '') return true; // uWS reads an empty write as the end of the body
  if (res[kIsHead]) {
    // No body goes out; kHooked now also says that a GET would have sent one in pieces (see writeEndOther).
    startHead(res);
    return true;
  }
  if (res[kHold] !== null && res[kHold].transform !== null) return writeTransformed(res, chunk);
  const declared = res[kDeclared];
  if (declared !== null) return writeDeclared(res, declared, chunk, false);
  if (!res[kHeadersSent]) {
    startHead(res);
    const status = res.statusCode;
    // No body for these (Node ignores such writes too): the head goes out at end().
    if (status === 204 || status === 304 || status < 200) return true;
    const total = declaredLength(res);
    if (total >= 0) return writeDeclared(res, (res[kDeclared] = new DeclaredBody(total)), chunk, false);
  }
  let ok = true;
  res.atomic(() => {
    if (!res[kHeadersSent]) writeHead(res);
    ok = res[kUres].write(chunk);
  });
  if (!ok) whenWritable(res);
  return ok;
}

/** What `res.end()` does (Node's signatures: end(cb), end(chunk, cb), end(chunk, encoding, cb)). */
export function endChunk(res: Response, chunk?: string | Uint8Array | (() => void), encoding?: unknown, cb?: unknown): void {
  let callback: (() => void) | undefined;
  if (typeof chunk === 'function') {
    callback = chunk as () => void;
    chunk = undefined;
  } else if (typeof encoding === 'function') callback = encoding as () => void;
  else if (typeof cb === 'function') callback = cb as () => void;
  if (res[kPhase] === Phase.Aborted) return;
  if (typeof chunk === 'string' && typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8') {
    chunk = Buffer.from(chunk, encoding as BufferEncoding);
  }
  endWith(res, (chunk as string | Uint8Array | undefined) ?? '');
  if (callback) queueMicrotask(callback);
}

/** Ends the response with `body`, the head first; corks unless uWS has. */
export function endWith(res: Response, body: string | Uint8Array | ArrayBuffer): void {
  if (res[kPhase] === Phase.Sync && res[kDeclared] === null && res[kHold] === null) {
    // The usual end, inside uWS's cork. The rest is kept apart (its closures would make every
    // call allocate a context), so that this stays small enough for V8 to inline.
    beforeEnd(res, body);
    writeEnd(res, body);
    afterEnd(res);
    return;
  }
  endWithOther(res, body);
}

/** {@link endWith} after the callback returned, with a declared length, a held head, or when over. */
function endWithOther(res: Response, body: string | Uint8Array | ArrayBuffer): void {
  const phase = res[kPhase];
  if (phase === Phase.Aborted) return;
  if (phase === Phase.Done) throw headersSent();
  const declared = res[kDeclared];
  if (declared !== null) {
    writeDeclared(res, declared, body instanceof ArrayBuffer ? new Uint8Array(body) : body, true);
    return;
  }
  if (res[kHold]?.defer((go) => go && endWith(res, body), true)) return;
  beforeEnd(res, body);
  if (res[kHold] !== null && res[kHold].transform !== null) {
    const out = transformWhole(res, body);
    if (out === null) return;
    body = out;
  }
  if (phase === Phase.Sync) writeEnd(res, body);
  else res[kUres].cork(() => writeEnd(res, body));
  afterEnd(res);
}

/** `res.sendPrepared()` when nothing may change the head: it goes out as the prepared bytes. */
export function endPrepared(res: Response, head: PreparedHead, body: string | Uint8Array | ArrayBuffer): void {
  const phase = res[kPhase];
  if (phase === Phase.Aborted) return;
  if (phase === Phase.Done) throw headersSent();
  res.statusCode = head.status;
  beforeEnd(res, body);
  if (phase === Phase.Sync) writeEnd(res, body, head.bytes);
  else res[kUres].cork(() => writeEnd(res, body, head.bytes));
  afterEnd(res);
}

/** Writes the head (`prepared`, or the one built from the headers set) and the body; the caller has corked. */
export function writeEnd(res: Response, body: string | Uint8Array | ArrayBuffer, prepared?: ArrayBuffer): void {
  const status = res.statusCode;
  if (prepared === undefined && status >= 200 && status !== 204 && status !== 304 && status !== 413 && !res[kHeadersSent] && !res[kIsHead] && !res[kClose] && !res.req[kOverflowed]) {
    // The usual answer, head and body in one piece on a connection that stays open. The rest is
    // kept apart, so that this stays small enough for V8 to inline into the methods that end.
    writeHead(res, false);
    res[kUres].end(body, false);
    return;
  }
  writeEndOther(res, body, prepared);
}

/** {@link writeEnd} for a head already out, a prepared head, a bodiless status or HEAD, or a connection that closes. */
function writeEndOther(res: Response, body: string | Uint8Array | ArrayBuffer, prepared: ArrayBuffer | undefined): void {
  // Headers already out: write() went first and the body is chunked. uWS's end(…, true) (v20.30
  // and v20.51, checked) writes its `Connection: close` line after the last chunk, inside the
  // body, which breaks the framing; such a response ends without it (a closing server closes the connection anyway).
  const chunked = res[kHeadersSent];
  if (prepared !== undefined) {
    res[kHeadersSent] = true;
    res[kUres].writeStatus(prepared);
    const lines = res[kLife].keepAlive;
    if (lines !== '' && !closesHere(res)) writeConnection(res, connectionLines(res, null, lines));
  } else if (!chunked) writeHead(res, closesHere(res));
  const status = res.statusCode;
  const ures = res[kUres];
  if (status === 204 || status === 304 || status < 200 || res[kIsHead]) {
    // No body. uWS's endWithoutBody (v20.30, v20.51 and @based/uws 6.0.1, checked) only completes
    // when called with no arguments: given a length, it writes the line but leaves the response
    // open, and the next request on the connection closes it. So the length (HEAD) and
    // Connection: close are written as headers.
    if (res[kIsHead] && status !== 204 && status !== 304) headLength(res, ures, body);
    if (!chunked && (res[kClose] || res.req[kOverflowed])) ures.writeHeader('connection', 'close');
    ures.endWithoutBody();
  } else if (chunked) {
    ures.end(body, false);
  } else if (res[kClose]) {
    ures.end(body, true);
  } else if ((status === 413 || res.req[kOverflowed]) && refuseRest(ures, res.req, body)) {
    // Answered; the rest of the body is read and dropped before the connection closes.
  } else {
    ures.end(body, false);
  }
}

/**
 * The Content-Length of a HEAD answer: the one the app set (`res.set('content-length', '100').end()`,
 * as Node sends it), else the length of the body a GET would send whole. None when the body was
 * written in pieces (write() before end(), a stream of unknown size): a GET sends that chunked.
 */
function headLength(res: Response, ures: Response[typeof kUres], body: string | Uint8Array | ArrayBuffer): void {
  const declared = headerValue(res, 'content-length');
  if (declared === undefined && res[kHooked]) return;
  const length = declared ?? (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  // Spelled as uWS spells the Content-Length it writes for a body (and as Node writes it).
  ures.writeHeader('Content-Length', String(length));
}

/**
 * Hooks that may still change headers, then let go of the request's body. `body` is the whole
 * body when the response ends in one piece: a response somebody listens to (a logger's
 * 'finish') then also records its Content-Length, for `get('content-length')`.
 */
export function beforeEnd(res: Response, body?: string | Uint8Array | ArrayBuffer): void {
  const hooks = res[kLife].hooks;
  if (hooks.onSend.length > 0 || hooks.onResponse.length > 0 || res[kHasListeners]) hookedEnd(res, body);
  res.req[kEnd]();
}

/** {@link beforeEnd} when hooks or listeners are there to see the response. */
function hookedEnd(res: Response, body: string | Uint8Array | ArrayBuffer | undefined): void {
  if (!res[kHeadersSent] && !res[kHooked]) res[kLife].beforeHead(res.req, res);
  if (res[kLife].hooks.onResponse.length > 0 || res[kHasListeners]) {
    res.req[kKeepAddress]();
    // Not after write(): `body` is then only the last piece (and a HEAD answer would report it).
    if (body !== undefined && !res[kHeadersSent] && !res[kHooked] && res[kHasListeners]) noteLength(res, body);
  }
}

/** The response was handed to uWS whole: done, and the lifecycle's `finished` runs. */
export function afterEnd(res: Response): void {
  res[kPhase] = Phase.Done;
  res[kLife].finished(res.req, res, false);
}

/** The first write: onSend hooks run once, before the head goes out (in a HEAD response no body goes out, but they run as for GET). */
export function startHead(res: Response): void {
  if (res[kHeadersSent] || res[kHooked]) return;
  res[kHooked] = true;
  res[kLife].beforeHead(res.req, res);
}

/**
 * Writes the status line and headers; the caller has corked. `closing`: writeEnd writes its own
 * `Connection: close` (a Connection header the app set is left out: it would make two).
 */
export function writeHead(res: Response, closing?: boolean): void {
  res[kHeadersSent] = true;
  if (closing !== true && res[kLife].keepAlive === '') {
    res[kHeads].write(res[kUres], res.statusCode, res[kHeaders], res[kReason]);
    return;
  }
  writeOtherHead(res, closing);
}

/** {@link writeHead} when the connection closes or the keepAliveHeader option adds its lines. */
function writeOtherHead(res: Response, closing: boolean | undefined): void {
  let list = res[kHeaders];
  if (closing === true) {
    if (list !== null && indexOfHeader(list, 'connection') >= 0) list = withoutHeader(list, 'connection');
    res[kHeads].write(res[kUres], res.statusCode, list, res[kReason]);
    return;
  }
  const lines = res[kLife].keepAlive;
  if (lines === '') res[kHeads].write(res[kUres], res.statusCode, list, res[kReason]);
  else res[kHeads].write(res[kUres], res.statusCode, list, res[kReason], connectionLines(res, list, lines));
}

/**
 * True when writeEnd answers with a `Connection: close` of its own (uWS's end(…, true), the
 * bodiless head's line, or refuseRest): the server is closing, the body was cut at the limit,
 * or a 413 leaves a body unread.
 */
function closesHere(res: Response): boolean {
  if (res[kClose]) return true;
  const req = res.req;
  if (req[kOverflowed]) return true;
  return res.statusCode === 413 && !res[kIsHead] && req[kUnreadBody]() !== null;
}

const CLOSE_LINE = '\r\nConnection: close';
const KEEP_ALIVE_LINE = '\r\nConnection: keep-alive';

/**
 * The `keepAliveHeader` option's lines for this response: none when the app set `Connection`,
 * `Connection: close` when the connection closes after it (the server is closing, the request
 * asked: dispatch marks both), else `lines` (without `Keep-Alive` when the app set one).
 */
function connectionLines(res: Response, list: HeaderList | null, lines: string): string {
  if (list !== null) {
    if (indexOfHeader(list, 'connection') >= 0) return '';
    if (indexOfHeader(list, 'keep-alive') >= 0) lines = KEEP_ALIVE_LINE;
  }
  // uWS writes no Connection: close of its own after a request that asked for it.
  return res[kClose] || res[kCloseAsked] ? CLOSE_LINE : lines;
}

/** The lines {@link connectionLines} chose, written as header calls after a prepared head (no text to parse again). */
function writeConnection(res: Response, lines: string): void {
  const ures = res[kUres];
  if (lines === CLOSE_LINE) {
    ures.writeHeader('Connection', 'close');
    return;
  }
  ures.writeHeader('Connection', 'keep-alive');
  const seconds = res[kLife].config.keepAliveHeader;
  if (lines !== KEEP_ALIVE_LINE && seconds !== false) ures.writeHeader('Keep-Alive', `timeout=${seconds}`);
}

/** uWS is full: `'drain'` is emitted once it can take more. */
export function whenWritable(res: Response): void {
  if (res[kOnWritable]) return;
  res[kOnWritable] = () => {
    res[kOnWritable] = undefined;
    res.emit('drain');
    return true;
  };
  registerWritable(res);
}

export function registerWritable(res: Response): void {
  res[kUres].onWritable((offset) => (res[kOnWritable] ? res[kOnWritable](offset) : true));
}

/** uWS's tryEnd, corked. */
function tryEndCorked(res: Response, chunk: Uint8Array, size: number): [boolean, boolean] {
  let result: [boolean, boolean] = [false, false];
  res.atomic(() => {
    result = res[kUres].tryEnd(chunk, size);
  });
  return result;
}

/**
 * One chunk of a body of known `size` (stream()) through uWS's tryEnd, the head first if it is
 * not out; `last` when it completes the body. Returns 2 when the response is complete, 1 when uWS
 * took the chunk, 0 when uWS is full: `resume` runs once it took the rest.
 */
export function tryEndChunk(res: Response, chunk: Uint8Array, size: number, last: boolean, resume: () => void): number {
  if (last) beforeEnd(res);
  const offset = res.atomic(() => {
    if (!res[kHeadersSent]) writeHead(res);
    return res[kUres].getWriteOffset();
  });
  const [ok, done] = tryEndCorked(res, chunk, size);
  if (done) {
    afterEnd(res);
    return 2;
  }
  if (ok) return 1;
  res[kOnWritable] = (at) => {
    const [ok2, done2] = tryEndCorked(res, chunk.subarray(at - offset), size);
    if (done2) afterEnd(res);
    else if (ok2) {
      res[kOnWritable] = undefined;
      resume();
    }
    return ok2;
  };
  registerWritable(res);
  return 0;
}

/**
 * A body of declared length written in pieces: `write()` on a response whose Content-Length is
 * set, as Node sends it (Express's `res.sendFile`, serve-static and proxies pipe files this way).
 * The chunks go out through uWS's tryEnd with that length, which writes only what the socket
 * takes and keeps nothing: the rest waits here, and onWritable sends it from uWS's write offset.
 *
 * The last byte waits for end(). uWS completes its response once it has every byte: from then on
 * its response object refuses every call (the request's abort handler among them, which the
 * dispatcher sets when a handler returns unanswered) and uWS may serve the next request on the
 * connection. Holding that byte keeps uWS's end and Velox's in step.
 */
export class DeclaredBody {
  /** The declared length. */
  readonly total: number;
  /** Bytes taken from write() and end() so far, at most `total`. */
  taken = 0;
  /** Chunks uWS has not taken whole, in order; the first begins at uWS's write offset `base`. */
  readonly queue: Uint8Array[] = [];
  base = 0;
  /** The last byte, kept for end(). */
  last: Uint8Array | null = null;
  /** uWS is full: new chunks wait behind the queue until onWritable sends it. */
  waiting = false;
  /** A write returned false: `'drain'` is emitted once the queue is empty. */
  drain = false;
  /** end() was called. */
  ended = false;
  /** uWS has every byte: its response is complete (and its object is gone). */
  sent = false;
  /** Bytes beyond `total` were dropped (logged once). */
  over = false;

  constructor(total: number) {
    this.total = total;
  }
}

const LENGTH = /^\d{1,15}$/;

/** The response's Content-Length as a whole number of bytes, or -1 when none is set (or a Transfer-Encoding is). */
function declaredLength(res: Response): number {
  const value = headerValue(res, 'content-length');
  if (typeof value !== 'string' || !LENGTH.test(value) || headerValue(res, 'transfer-encoding') !== undefined) return -1;
  return Number(value);
}

/**
 * One chunk of a declared-length body: from write(), or the last from end() (`last`). Returns
 * false while uWS is full (`'drain'` follows). Bytes beyond the declared length are dropped: sent,
 * they would be read as the start of the next response on the connection. An end() short of the
 * length closes the connection, so that the client sees the body cut short instead of waiting.
 */
function writeDeclared(res: Response, body: DeclaredBody, chunk: string | Uint8Array, last: boolean): boolean {
  if (body.ended) throw headersSent();
  let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  const room = body.total - body.taken;
  if (bytes.byteLength > room) {
    if (!body.over) {
      body.over = true;
      report(res, `write() went past the ${body.total} bytes of the response's Content-Length: the bytes beyond were dropped`);
    }
    bytes = bytes.subarray(0, room);
  }
  body.taken += bytes.byteLength;
  const first = !res[kHeadersSent];
  if (last) {
    body.ended = true;
    if (body.taken < body.total) {
      report(res, `end() came after ${body.taken} of the ${body.total} bytes of the response's Content-Length: the connection was closed`);
      cut(res);
      return false;
    }
    beforeEnd(res);
    // The byte kept back, or the end of the chunk that completes the body (or, for a length of 0, nothing).
    if (body.last !== null) {
      bytes = body.last;
      body.last = null;
    }
  } else if (body.taken === body.total && bytes.byteLength > 0) {
    body.last = bytes.subarray(bytes.byteLength - 1);
    bytes = bytes.subarray(0, bytes.byteLength - 1);
  }
  if (last || bytes.byteLength > 0 || first) {
    body.queue.push(bytes);
    if (!body.waiting) sendDeclared(res, body, body.base);
  }
  if (body.sent) afterEnd(res);
  if (!body.waiting) return true;
  body.drain = true;
  return false;
}

/**
 * Hands the queue to uWS's tryEnd, the head first; `at` is uWS's write offset (what it took so
 * far). An empty chunk (a first write that sends only the head) is handed over only by end():
 * for a length of 0, uWS would complete the response on it.
 */
function sendDeclared(res: Response, body: DeclaredBody, at: number): void {
  const queue = body.queue;
  corked(res, () => {
    const ures = res[kUres];
    if (!res[kHeadersSent]) writeHead(res);
    let skip = at - body.base;
    while (queue.length > 0) {
      const chunk = queue[0]!;
      if (chunk.byteLength === 0 && !body.ended) {
        queue.shift();
        continue;
      }
      const [ok, done] = ures.tryEnd(skip === 0 ? chunk : chunk.subarray(skip), body.total);
      if (done) {
        body.sent = true;
        queue.length = 0;
      } else if (ok) {
        body.base += chunk.byteLength;
        queue.shift();
        skip = 0;
      } else break;
    }
  });
  body.waiting = queue.length > 0;
  if (body.waiting && res[kOnWritable] === undefined) {
    res[kOnWritable] = (offset) => resumeDeclared(res, body, offset);
    registerWritable(res);
  }
}

/** uWS can take more: sends what waits; `'drain'` once all went, and the end if end() came. */
function resumeDeclared(res: Response, body: DeclaredBody, at: number): boolean {
  if (res[kPhase] >= Phase.Done || body.queue.length === 0) return true;
  sendDeclared(res, body, at);
  if (body.waiting) return false;
  if (body.sent) afterEnd(res);
  else if (body.drain) {
    body.drain = false;
    res.emit('drain');
  }
  return true;
}

/** Logs a declared length the handler did not keep to (a bug in the handler, not the client's). */
function report(res: Response, message: string): void {
  res[kLife].config.logger?.error(new VeloxError(ErrorCodes.CONTENT_LENGTH_MISMATCH, message));
}

/** Completes a WebSocket upgrade; headers set so far go out with the 101. */
export function completeUpgrade(res: Response, data: unknown, key: string, protocol: string, extensions: string): void {
  if (res[kPhase] >= Phase.Done) return;
  if (res[kHold]?.defer((go) => go && completeUpgrade(res, data, key, protocol, extensions), true)) return;
  beforeEnd(res);
  const ures = res[kUres];
  const go = () => {
    res[kHeadersSent] = true;
    const list = res[kHeaders];
    if (list !== null) {
      ures.writeStatus('101 Switching Protocols');
      for (let i = 0; i < list.length; i += 2) {
        if (list[i] === 'date') continue; // uWS dates the 101 itself
        const value = list[i + 1]!;
        for (const v of typeof value === 'string' ? [value] : value) ures.writeHeader(list[i] as string, v);
      }
    }
    ures.upgrade(data, key, protocol, extensions, (ures as unknown as Record<symbol, us_socket_context_t>)[kContext]!);
  };
  if (res[kPhase] === Phase.Sync) go();
  else ures.cork(go);
  afterEnd(res);
}

/** What `res.destroy()` does: closes the connection at once (the client sees it cut). */
export function cut(res: Response): void {
  if (res[kPhase] >= Phase.Done) return;
  const ures = res[kUres];
  res[kAbort]();
  res.req[kAbort]();
  res[kLife].finished(res.req, res, true);
  ures.close();
}

/** Takes the response's beforeHead() state away (returns it, leaves null). */
export function takeHold(res: Response): Hold | null {
  const hold = res[kHold];
  if (hold !== null && hold.transform !== null) {
    // It keeps the body transform: only the tasks go (a failed task drops the rest).
    hold.tasks.length = 0;
    return hold;
  }
  res[kHold] = null;
  return hold;
}

/** A beforeHead() task failed: forget status and headers, and let the error path answer. */
export function startOver(res: Response, err: unknown): void {
  res.statusCode = 200;
  res[kReason] = undefined;
  res[kHeaders] = null;
  res[kLife].fail(err, res.req, res);
}

// ---------------------------------------------------------------------------------------------
// res.transformBody() (body-transform.ts has the types and what they promise). The transform
// lives in the response's Hold (before-head.ts), whose presence already sends endWith,
// sendPrepared and stream() off their usual paths: a response without one pays nothing more.

/** A {@link BodyStream} a transform opened, and the {@link BodySink} core gives it. */
export class Transforming implements BodySink {
  readonly transform: BodyTransform;
  readonly stream: BodyStream;
  readonly res: Response;
  /** The app ended its body: writes throw, the response ends when the stream calls end(). */
  ended = false;
  /** The stream ended the response, or it was dropped (client gone, destroyed): nothing more goes out. */
  over = false;

  constructor(res: Response, transform: BodyTransform, stream: BodyStream) {
    this.res = res;
    this.transform = transform;
    this.stream = stream;
  }

  write(chunk: Uint8Array): boolean {
    const res = this.res;
    if (this.over || res[kPhase] >= Phase.Done) return false;
    if (chunk.byteLength === 0) return true; // uWS reads an empty write as the end of the body
    let ok = true;
    corked(res, () => {
      if (!res[kHeadersSent]) writeHead(res);
      ok = res[kUres].write(chunk);
    });
    if (!ok && res[kOnWritable] === undefined) {
      res[kOnWritable] = () => {
        res[kOnWritable] = undefined;
        if (!this.over) this.stream.resume();
        return true;
      };
      registerWritable(res);
    }
    return ok;
  }

  end(): void {
    const res = this.res;
    if (this.over || res[kPhase] >= Phase.Done) return;
    this.over = true;
    corked(res, () => writeEnd(res, ''));
    afterEnd(res);
  }

  drain(): void {
    if (!this.over && this.res[kPhase] < Phase.Done) this.res.emit('drain');
  }

  fail(err: unknown): void {
    const res = this.res;
    if (this.over) return;
    res[kLife].config.logger?.error(err);
    cut(res);
  }
}

/** A transform's stream is dropped before it ended the response (client gone, destroy(), fail()). */
export function dropTransform(res: Response): void {
  const current = res[kHold]?.transform ?? null;
  if (current === null || typeof current === 'function') return;
  if (current.over) return;
  current.over = true;
  try {
    current.stream.destroy();
  } catch (err) {
    res[kLife].config.logger?.error(err);
  }
}

function isBodyStream(out: unknown): out is BodyStream {
  return typeof out === 'object' && out !== null && !(out instanceof Uint8Array) && typeof (out as BodyStream).write === 'function';
}

function bodiless(res: Response): boolean {
  const status = res.statusCode;
  return res[kIsHead] || status < 200 || status === 204 || status === 304;
}

/**
 * Calls the transform (taken off the response); returns what it gave, or `FAILED` when it threw
 * (the response then starts over through the error path, without it).
 */
function callTransform(res: Response, transform: BodyTransform, body: string | Uint8Array | null): string | Uint8Array | BodyStream | undefined | typeof FAILED {
  res[kHold]!.transform = null;
  try {
    return transform(res, body);
  } catch (err) {
    startOver(res, err);
    return FAILED;
  }
}

const FAILED: unique symbol = Symbol('velox.transformFailed');

/** The stream a transform returned, put in place: it gets the sink, Content-Length goes. */
function openStream(res: Response, transform: BodyTransform, stream: BodyStream): Transforming {
  const state = new Transforming(res, transform, stream);
  res[kHold]!.transform = state;
  removeHeader(res, 'content-length');
  stream.start(state);
  return state;
}

/**
 * endWith() on a response with a transform: returns the body to write, or null when the
 * transform took it (a stream, which ends the response itself) or the response started over.
 */
function transformWhole(res: Response, body: string | Uint8Array | ArrayBuffer): string | Uint8Array | ArrayBuffer | null {
  const current = res[kHold]!.transform!;
  if (typeof current !== 'function') {
    // Streaming already (the app wrote first): its last chunk, then the end.
    if (current.ended) throw headersSent();
    current.ended = true;
    const last = typeof body === 'string' ? Buffer.from(body) : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
    if (last.byteLength > 0 && !current.over) current.stream.write(last);
    if (!current.over) current.stream.end();
    return null;
  }
  const whole = body instanceof ArrayBuffer ? new Uint8Array(body) : body;
  const out = callTransform(res, current, whole);
  if (out === FAILED) return null;
  if (out === undefined || out === null) return body;
  if (bodiless(res)) {
    if (isBodyStream(out)) out.destroy();
    return body;
  }
  if (typeof out === 'string' || out instanceof Uint8Array) {
    if (headerValue(res, 'content-length') !== undefined) putHeader(res, 'content-length', String(typeof out === 'string' ? Buffer.byteLength(out) : out.byteLength), true);
    return out;
  }
  if (!isBodyStream(out)) {
    startOver(res, new VeloxError(ErrorCodes.INVALID_OPTION, 'A body transform returned something that is not a string, bytes, a BodyStream or undefined'));
    return null;
  }
  const state = openStream(res, current, out);
  state.ended = true;
  const bytes = typeof whole === 'string' ? Buffer.from(whole) : whole;
  if (bytes.byteLength > 0 && !state.over) out.write(bytes);
  if (!state.over) out.end();
  return null;
}

/** writeChunk() on a response with a transform: opened on the first chunk, then every chunk goes through its stream. */
function writeTransformed(res: Response, chunk: string | Uint8Array): boolean {
  let current = res[kHold]!.transform!;
  if (typeof current === 'function') {
    // onSend hooks first: the transform sees the final head.
    if (!res[kHeadersSent]) startHead(res);
    const out = callTransform(res, current, null);
    if (out === FAILED) return false;
    if (out === undefined || out === null || bodiless(res)) {
      if (isBodyStream(out)) out.destroy();
      return writeChunk(res, chunk);
    }
    if (!isBodyStream(out)) {
      startOver(res, new VeloxError(ErrorCodes.INVALID_OPTION, 'A body transform returned bytes for a streamed body: only a BodyStream or undefined can take one'));
      return false;
    }
    current = openStream(res, current, out);
  }
  if (current.ended) throw headersSent();
  if (current.over) return false;
  return current.stream.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
}
