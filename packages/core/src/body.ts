/**
 * The request body: read from uWS only when someone asks for it (or when the handler went async
 * before asking, since uWS hands out body data only to a reader attached in its callback).
 *
 * Two ways to consume it, once: buffered (`text`, `json`, `buffer`, bounded by maxBodyLength),
 * or streamed (a Readable made on demand; uWS is paused while the consumer is slow).
 *
 * uWS v20.51 goes on calling onData after pause() for as long as each of its reads fills its
 * 512 KB buffer (uSockets reads again at once then, without looking at the pause): the kernel's
 * receive buffer, and more while a client sends faster than this process copies. Those chunks are
 * queued like any other (the stream's buffer, or the list kept before a reader came) and handed
 * over in order when the consumer asks; Velox cannot stop that loop short of closing the
 * connection, and does not (see the README: Backpressure on request bodies). The copy out of
 * uWS's buffer is the whole cost of such a chunk (a push is about 1% of it), so nothing is gained
 * by queueing them any other way.
 */
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type { HttpResponse } from '@based/uws';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { kAbort, kCork, kUnreadBody } from './symbols.ts';

/** The shared empty chunk list: most bodies arrive in one piece and never need a list of their own. */
const NO_CHUNKS: Buffer[] = [];

/**
 * Bytes queued with no consumer, or not yet taken by a slow stream, before uWS is paused (what
 * uWS still delivers after the pause comes on top: see above).
 */
const HIGH_WATER_MARK = 64 * 1024;

/**
 * A refused body (cut at a limit, or answered 413) whose announced rest is at most this long is
 * answered at once and in full, and read to its end by uWS (see Response: refusing a body).
 */
export const LINGER_BYTES = 8 * 1024 * 1024;
/** Longest time a refused body of unknown or larger length is read and dropped before the connection is cut. */
export const LINGER_MS = 5000;
/** A refused body that sends nothing for this long is taken to have stopped: the held answer is completed. */
export const LINGER_QUIET_MS = 1000;

/** What a buffered read resolves with. */
export const enum As {
  Buffer = 0,
  Text = 1,
  /** Parsed JSON; malformed JSON rejects with a 400. */
  Json = 2,
}

const enum Mode {
  Idle = 0,
  Buffer = 1,
  Stream = 2,
  Discard = 3,
  /** Refused: dropped, and watched for its end, a quiet spell, or the linger deadline. */
  Linger = 4,
}

/** How a linger ended: the body ended or went quiet (complete the answer), or it went on too long (cut). */
export const enum LingerEnd {
  Finished = 0,
  Cut = 1,
}

export class Body {
  #ures: HttpResponse;
  #res: Response;
  #chunks: Buffer[];
  #queued: number;
  #received: number;
  #done: boolean;
  #paused: boolean;
  #mode: Mode;
  #error: VeloxError | undefined;
  #limit: number;
  #as: As;
  #resolve: ((value: any) => void) | undefined;
  #reject: ((err: unknown) => void) | undefined;
  #stream: Readable | undefined;
  #linger: Linger | undefined;
  /** Set when the body went over the limit: the connection must close after the answer. */
  overflowed: boolean;
  /** The announced length (Content-Length), or -1 for a chunked body. */
  readonly expectedLength: number;

  constructor(ures: HttpResponse, res: Response, expectedLength: number) {
    // Assigned here rather than as field initializers: one flat constructor V8 inlines.
    this.#ures = ures;
    this.#res = res;
    this.#chunks = NO_CHUNKS;
    this.#queued = 0;
    this.#received = 0;
    this.#done = false;
    this.#paused = false;
    this.#mode = Mode.Idle;
    this.#error = undefined;
    this.#limit = Infinity;
    this.#as = As.Buffer;
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#stream = undefined;
    this.#linger = undefined;
    this.overflowed = false;
    this.expectedLength = expectedLength;
    ures.onData((chunk, isLast) => this.#onData(chunk, isLast));
  }

  /** Reads the whole body, as a Buffer, a string or parsed JSON. */
  read(limit: number, as: As): Promise<any> {
    if (this.#mode !== Mode.Idle) return Promise.reject(consumed());
    this.#mode = Mode.Buffer;
    if (this.#error) return Promise.reject(this.#error);
    this.#limit = limit;
    this.#as = as;
    if (this.expectedLength > limit || this.#received > limit) return Promise.reject(this.#overflow());
    if (this.#done) {
      try {
        return Promise.resolve(this.#convert(this.#concat()));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.#resume();
    return new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Makes the body a Readable; chunks queued so far come first. */
  stream(): Readable {
    if (this.#stream) return this.#stream;
    if (this.#mode !== Mode.Idle) throw consumed();
    this.#mode = Mode.Stream;
    const stream = new Readable({
      highWaterMark: HIGH_WATER_MARK,
      read: () => this.#resume(),
    });
    this.#stream = stream;
    for (const chunk of this.#chunks) stream.push(chunk);
    this.#chunks = NO_CHUNKS;
    this.#queued = 0;
    if (this.#error) stream.destroy(this.#error);
    else if (this.#done) stream.push(null);
    return stream;
  }

  /** The response is over: drop what comes, and let uWS read on so the connection stays usable. */
  discard(): void {
    if (this.#mode >= Mode.Discard) return;
    const wasStreaming = this.#mode === Mode.Stream;
    this.#mode = Mode.Discard;
    this.#chunks = NO_CHUNKS;
    this.#queued = 0;
    if (!this.#done) {
      if (wasStreaming && this.#stream && !this.#stream.destroyed) this.#stream.destroy(responseEnded());
      // A read still waiting would otherwise never settle, and the code after its await never run.
      const reject = this.#reject;
      this.#resolve = this.#reject = undefined;
      reject?.(responseEnded());
    }
    this.#resume();
  }

  /**
   * The body is refused and the answer went out without its end: read and drop what comes, and
   * call `end` once, when the body ends or sends nothing for LINGER_QUIET_MS (Finished), or when
   * LINGER_MS pass first (Cut). Never called if the client leaves first.
   */
  linger(end: (how: LingerEnd) => void): void {
    this.discard();
    this.#mode = Mode.Linger;
    if (this.#done) return end(LingerEnd.Finished);
    const linger: Linger = {
      end,
      deadline: setTimeout(() => this.#endLinger(LingerEnd.Cut), LINGER_MS),
      quiet: setTimeout(() => this.#quietSpell(linger), LINGER_QUIET_MS),
      chunks: 0,
    };
    linger.deadline.unref();
    linger.quiet.unref();
    this.#linger = linger;
  }

  /**
   * No data for LINGER_QUIET_MS, as the timers see it. After a stall of the whole process, data
   * may wait in the socket while the timer fires first (timers run before I/O in Node's loop):
   * look again after the next I/O poll before taking the body to have stopped.
   */
  #quietSpell(linger: Linger): void {
    const seen = linger.chunks;
    setImmediate(() => {
      if (this.#linger !== linger) return;
      if (linger.chunks === seen) this.#endLinger(LingerEnd.Finished);
      else linger.quiet.refresh();
    });
  }

  #endLinger(how: LingerEnd): void {
    const linger = this.#linger;
    if (!linger) return;
    this.#linger = undefined;
    clearTimeout(linger.deadline);
    clearTimeout(linger.quiet);
    linger.end(how);
  }

  /** The client went away. */
  abort(): void {
    this.#paused = false; // the uWS response is gone: never touch it again
    const linger = this.#linger;
    if (linger) {
      this.#linger = undefined;
      clearTimeout(linger.deadline);
      clearTimeout(linger.quiet);
    }
    if (this.#done) return;
    this.#fail(new VeloxError(ErrorCodes.ABORTED, 'The client closed the connection before the body was read', { status: 499 }));
    this.#mode = Mode.Discard;
  }

  /** True once a reader took the body (buffered, streamed or discarded). */
  get used(): boolean {
    return this.#mode !== Mode.Idle;
  }

  /** True once the last byte arrived. */
  get complete(): boolean {
    return this.#done;
  }

  /** Bytes received so far. */
  get received(): number {
    return this.#received;
  }

  #onData(ab: ArrayBuffer, isLast: boolean): void {
    const length = ab.byteLength;
    this.#received += length;
    const mode = this.#mode;
    if (mode >= Mode.Discard) {
      if (isLast) this.#done = true;
      if (mode === Mode.Linger) this.#lingerData(isLast);
      return;
    }
    if (mode === Mode.Buffer && this.#received > this.#limit) {
      this.#fail(this.#overflow());
      this.#mode = Mode.Discard;
      if (isLast) this.#done = true;
      return;
    }
    if (length > 0) {
      // A single, final chunk read as text is decoded in place: uWS neuters `ab` when we return.
      if (mode === Mode.Buffer && isLast && this.#chunks.length === 0) {
        this.#done = true;
        const view = Buffer.from(ab, 0, length);
        return this.#settle(this.#as === As.Buffer ? Buffer.from(view) : view);
      }
      const chunk = Buffer.from(new Uint8Array(ab));
      if (mode === Mode.Stream) {
        if (!this.#stream!.push(chunk)) this.#pause();
      } else {
        if (this.#chunks === NO_CHUNKS) this.#chunks = [chunk];
        else this.#chunks.push(chunk);
        this.#queued += length;
        if (mode === Mode.Idle && this.#queued >= HIGH_WATER_MARK) this.#pause();
      }
    }
    if (isLast) {
      this.#done = true;
      if (mode === Mode.Stream) this.#stream!.push(null);
      else if (mode === Mode.Buffer) this.#settle(this.#concat());
    }
  }

  #lingerData(isLast: boolean): void {
    const linger = this.#linger;
    if (!linger) return;
    if (isLast) return this.#endLinger(LingerEnd.Finished);
    linger.chunks++;
    linger.quiet.refresh();
  }

  #concat(): Buffer {
    const chunks = this.#chunks;
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.#chunks = NO_CHUNKS;
    return all;
  }

  /** Turns the bytes into what the reader asked for; may throw on malformed JSON. */
  #convert(bytes: Buffer): unknown {
    if (this.#as === As.Buffer) return bytes;
    // No arguments: Buffer's toString goes straight to UTF-8, without looking up an encoding.
    const text = bytes.toString();
    return this.#as === As.Text ? text : parseJson(text);
  }

  /** Settles the pending read; `bytes` may be a view of uWS's buffer, so it is converted now. */
  #settle(bytes: Buffer): void {
    const resolve = this.#resolve;
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    try {
      resolve?.(this.#convert(bytes));
    } catch (err) {
      reject?.(err);
    }
    // Called from uWS's data callback: whoever awaited the body answers inside uWS's cork. Only
    // once the promise is settled, so that the awaiting code's continuation is queued before the
    // microtask that ends this (see Response[kCork]).
    this.#res[kCork]();
  }

  #fail(err: VeloxError): void {
    this.#error = err;
    this.#chunks = NO_CHUNKS;
    this.#queued = 0;
    const reject = this.#reject;
    this.#resolve = this.#reject = undefined;
    reject?.(err);
    if (this.#stream && !this.#stream.destroyed) this.#stream.destroy(err);
  }

  #overflow(): VeloxError {
    this.overflowed = true;
    return new VeloxError(ErrorCodes.BODY_TOO_LARGE, `Body is larger than ${this.#limit} bytes`, { status: 413 });
  }

  #pause(): void {
    if (this.#paused || this.#done) return;
    this.#paused = true;
    this.#ures.pause();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#ures.resume();
  }
}

interface Linger {
  end: (how: LingerEnd) => void;
  deadline: NodeJS.Timeout;
  quiet: NodeJS.Timeout;
  /** Chunks seen so far, to tell a quiet spell from a stalled process. */
  chunks: number;
}

/**
 * Whether a Content-Type names a JSON media type: `application/json` or any type with the
 * `+json` suffix (`application/problem+json`, `application/vnd.api+json`), in any case, with any
 * parameters (`; charset=utf-8`). A missing or empty value is not JSON. The forms a browser can
 * send cross-site without a CORS preflight (`text/plain`, `application/x-www-form-urlencoded`,
 * `multipart/form-data`) are not, which is the point: a JSON route refuses them with 415.
 *
 * @example
 * ```ts
 * import { isJsonType } from '@velox/core';
 * isJsonType('application/json; charset=utf-8'); // true
 * isJsonType('text/plain'); // false
 * app.post('/hook', async (req, res) => res.send(isJsonType(req.get('content-type')) ? 'json' : 'other'));
 * ```
 */
export function isJsonType(value: string | undefined): boolean {
  // The spellings clients send almost always, compared whole before anything is parsed.
  if (value === 'application/json' || value === 'application/json; charset=utf-8' || value === 'application/json;charset=UTF-8') {
    return true;
  }
  if (value === undefined || value === '') return false;
  const semicolon = value.indexOf(';');
  const essence = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json' || (essence.endsWith('+json') && MEDIA_TYPE.test(essence));
}

/** `type/subtype`, both HTTP tokens (RFC 9110 8.3.1), lower-case. */
const MEDIA_TYPE = /^[a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+$/;

/** Parses JSON, answering 400 for a malformed or empty body. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new VeloxError(ErrorCodes.BAD_JSON, text === '' ? 'Body is empty, expected JSON' : 'Body is not valid JSON', {
      status: 400,
      cause,
    });
  }
}

function responseEnded(): VeloxError {
  return new VeloxError(ErrorCodes.ABORTED, 'The response ended before the body was read', { status: 400 });
}

function consumed(): VeloxError {
  return new VeloxError(ErrorCodes.BODY_CONSUMED, 'The body was already read', { status: 500, expose: false });
}

/**
 * How a request's body is framed, from its Content-Length and Transfer-Encoding lines (`conflict`:
 * Content-Length lines that disagree): the length in bytes (0 for no body), -1 for chunked, or,
 * as a string, why the framing is unsafe (the request is answered 400 and its connection closed).
 */
export function bodyFraming(length: string | undefined, coding: string | undefined, conflict: boolean): number | string {
  if (coding !== undefined) {
    if (length !== undefined) return 'Content-Length and Transfer-Encoding together';
    if (!isChunked(coding)) return `Transfer-Encoding must be chunked, got ${quote(coding)}`;
    return -1;
  }
  if (length === undefined) return 0;
  if (conflict) return 'Content-Length sent more than once, with different values';
  const n = contentLength(length);
  if (n < 0) return `Content-Length must be a number of bytes, got ${quote(length)}`;
  return n;
}

/**
 * The value of a Content-Length header, or -1 when it is not a plain decimal number of 1 to 15
 * digits. uWS answers 400 to other characters itself, but only after the route ran; it reads an
 * empty value as no body, and up to 18 digits, past what a JavaScript number holds exactly (no
 * body is that long: Velox refuses more than 15). A loop over the digits:
 * `Number(text)` goes through V8's generic string-to-number conversion, which also computes and
 * stores the string's hash, several times the cost for a short value.
 */
function contentLength(text: string): number {
  const length = text.length;
  if (length === 0 || length > 15) return -1;
  let n = 0;
  for (let i = 0; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** True for `chunked` alone (any case; the spaces and tabs around a field value are not part of it). */
function isChunked(coding: string): boolean {
  return coding === 'chunked' || coding.replace(/^[ \t]+|[ \t]+$/g, '').toLowerCase() === 'chunked';
}

/** A client-sent value, quoted and cut short, for an error message. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/**
 * @internal Answers (through `ures`; the caller has corked and written the head) while refusing
 * the rest of the request's body: a 413, or any answer after a body was cut at maxBodyLength. Closing the connection at once would reset it under a client that is
 * still writing, and such a client often never reads the answer (EPIPE, ECONNRESET). So the
 * answer says `Connection: close`, and the rest of the body is read and dropped first:
 * - a rest of known length up to LINGER_BYTES: the answer goes out whole, uWS reads the rest
 *   (the body drops it), and the client closes (as asked) or uWS's idle timeout does;
 * - otherwise: the head and body go out at once as one chunk, and the response's end waits
 *   until the body ends or goes quiet for LINGER_QUIET_MS (then the client may close), or
 *   LINGER_MS pass (then the connection is cut). uWS (v20.30 and v20.51) cannot close a
 *   connection once a response is complete, so this is how the reading stays bounded.
 * Returns false when no body is left to refuse (the caller ends as usual).
 */
export function refuseRest(ures: HttpResponse, req: Request, body: string | Uint8Array | ArrayBuffer): boolean {
  const unread = req[kUnreadBody]();
  if (unread === null) return false;
  ures.writeHeader('connection', 'close');
  const length = unread.expectedLength;
  // uWS closes at once after any answer to a request that asked for it (a 5-character
  // Connection value): only a held answer keeps the connection open for the rest.
  if (length >= 0 && length - unread.received <= LINGER_BYTES && req.get('connection')?.length !== 5) {
    ures.end(body, false);
    return true;
  }
  if ((typeof body === 'string' ? body.length : body.byteLength) > 0) ures.write(body);
  // The response is over for Velox but not for uWS, which wants an abort handler meanwhile.
  ures.onAborted(() => req[kAbort]());
  unread.linger((how) => {
    if (how === LingerEnd.Cut) ures.close();
    else ures.cork(() => ures.end());
  });
  return true;
}
