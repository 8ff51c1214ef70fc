/**
 * The request body: read from uWS only when someone asks for it (or when the handler went async
 * before asking, since uWS hands out body data only to a reader attached in its callback).
 *
 * Two ways to consume it, once: buffered (`text`, `json`, `buffer`, bounded by maxBodyLength),
 * or streamed (a Readable made on demand; uWS is paused while the consumer is slow).
 *
 * uWS v20.51 goes on calling onData after pause() for as long as each of its reads fills its
 * 512 KB buffer (uSockets reads again at once then, without looking at the pause): the kernel's
 * receive buffer, and more while a client sends faster than this process copies. Velox cannot
 * stop that loop short of closing the connection, and does not (see the README: Backpressure on
 * request bodies). Those chunks are queued like any other (the stream's buffer, or the list kept
 * before a reader came) until `bodyBufferSize` bytes wait; past that, they are appended to a
 * temporary file (body-spill.ts) and read back in order when the consumer asks. All of that is
 * reached only while uWS is paused ({@link Body._onPausedData}, {@link Body._resumeSpilled}): a
 * consumer that keeps up runs the same code as before files existed.
 */
import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type { HttpResponse } from '@based/uws';
import { BodySpill, READ_BACK } from './body-spill.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { kAbort, kConfig, kCork, kUnreadBody, kUres } from './symbols.ts';

/** Buffer's UTF-8 decoder, which reads any Uint8Array: what `buffer.toString()` calls. */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice: (this: Uint8Array, start: number, end: number) => string }).utf8Slice;

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
  private declare _res: Response;
  private declare _chunks: Buffer[];
  private declare _queued: number;
  private declare _received: number;
  private declare _done: boolean;
  private declare _paused: boolean;
  private declare _mode: Mode;
  private declare _error: VeloxError | undefined;
  private declare _limit: number;
  private declare _as: As;
  private declare _resolve: ((value: any) => void) | undefined;
  private declare _reject: ((err: unknown) => void) | undefined;
  private declare _stream: Readable | undefined;
  private declare _linger: Linger | undefined;
  /** Made when the body first spills to a file, or when a stream reader declares a limit. */
  private declare _spill: BodySpill | undefined;
  /** Set when the body went over the limit: the connection must close after the answer. */
  declare overflowed: boolean;
  /** The announced length (Content-Length), or -1 for a chunked body. */
  declare readonly expectedLength: number;
  /** The request's first Content-Type line when the body started (undefined: none). */
  declare readonly contentType: string | undefined;

  constructor(ures: HttpResponse, res: Response, expectedLength: number, contentType: string | undefined) {
    // Assigned here, and the fields only declared (no private fields either): no field
    // initializer function runs before the constructor, which V8 does not inline. uWS's response
    // is not kept: the Response holds it (one field fewer in every body reader).
    this._res = res;
    this._chunks = NO_CHUNKS;
    this._queued = 0;
    this._received = 0;
    this._done = false;
    this._paused = false;
    this._mode = Mode.Idle;
    this._error = undefined;
    // Set by read() before anything compares with it. A whole number from the start: Infinity
    // would make the field a double, boxed in a heap number of its own for every body.
    this._limit = 0;
    this._as = As.Buffer;
    this._resolve = undefined;
    this._reject = undefined;
    this._stream = undefined;
    this._linger = undefined;
    this._spill = undefined;
    this.overflowed = false;
    this.expectedLength = expectedLength;
    this.contentType = contentType;
    // A bound method rather than an arrow function: no context object to hold `this` besides the function.
    ures.onData(this._onData.bind(this));
  }

  /** Reads the whole body, as a Buffer, a string or parsed JSON. */
  read(limit: number, as: As): Promise<any> {
    if (this._mode === Mode.Idle && !this._done && this._error === undefined && this.expectedLength <= limit && this._received <= limit) {
      // The usual read: asked for before the body arrived. The rest is kept apart, so that this
      // stays small enough for V8 to inline.
      this._mode = Mode.Buffer;
      this._limit = limit;
      this._as = as;
      this._resume();
      return new Promise((resolve, reject) => {
        this._resolve = resolve;
        this._reject = reject;
      });
    }
    return this._readOther(limit, as);
  }

  /** {@link read} once the body arrived, failed or went over the limit, or was taken already. */
  private _readOther(limit: number, as: As): Promise<any> {
    if (this._mode !== Mode.Idle) return Promise.reject(consumed());
    this._mode = Mode.Buffer;
    if (this._error) return Promise.reject(this._error);
    this._limit = limit;
    this._as = as;
    if (this.expectedLength > limit || this._received > limit) return Promise.reject(this._overflow());
    // What is left: the body arrived whole before the read (read() takes every other case).
    try {
      if (this._spill?.open) this._unspill(this._spill);
      return Promise.resolve(this._convert(this._concat()));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Makes the body a Readable; chunks queued so far come first. `limit` (-1: none) bounds the
   * bytes received, read or not: more fails the stream with a 413 (see {@link _limitStream}).
   */
  stream(limit: number): Readable {
    if (this._stream) return this._stream;
    if (this._mode !== Mode.Idle) throw consumed();
    this._mode = Mode.Stream;
    const stream = new Readable({
      highWaterMark: HIGH_WATER_MARK,
      read: () => this._resume(),
    });
    this._stream = stream;
    for (const chunk of this._chunks) stream.push(chunk);
    this._chunks = NO_CHUNKS;
    this._queued = 0;
    if (limit >= 0 && this._error === undefined) this._limitStream(limit);
    if (this._error) stream.destroy(this._error);
    else if (this._done && this._spill?.open !== true) stream.push(null);
    return stream;
  }

  /**
   * A stream reader's limit: checked now against what arrived, and then against each chunk that
   * arrives while uWS is paused (a consumer that keeps up counts its bytes itself, and stops at
   * its limit: the limit's job here is the body that nobody reads, on disk).
   */
  private _limitStream(limit: number): void {
    (this._spill ??= new BodySpill(this._res.req, this._res.server[kConfig].bodyTempDir)).limit = limit;
    if (this._received > limit) this._cut(tooLarge(limit));
  }

  /** The response is over: drop what comes, and let uWS read on so the connection stays usable. */
  discard(): void {
    if (this._mode < Mode.Discard) this._discardNow();
  }

  private _discardNow(): void {
    const wasStreaming = this._mode === Mode.Stream;
    this._mode = Mode.Discard;
    this._chunks = NO_CHUNKS;
    this._queued = 0;
    if (this._spill !== undefined) this._spill.close();
    if (!this._done) {
      if (wasStreaming && this._stream && !this._stream.destroyed) this._stream.destroy(responseEnded());
      // A read still waiting would otherwise never settle, and the code after its await never run.
      const reject = this._reject;
      this._resolve = this._reject = undefined;
      reject?.(responseEnded());
    }
    this._resume();
  }

  /**
   * The body is refused and the answer went out without its end: read and drop what comes, and
   * call `end` once, when the body ends or sends nothing for LINGER_QUIET_MS (Finished), or when
   * LINGER_MS pass first (Cut). Never called if the client leaves first.
   */
  linger(end: (how: LingerEnd) => void): void {
    this.discard();
    this._mode = Mode.Linger;
    if (this._done) return end(LingerEnd.Finished);
    const linger: Linger = {
      end,
      deadline: setTimeout(() => this._endLinger(LingerEnd.Cut), LINGER_MS),
      quiet: setTimeout(() => this._quietSpell(linger), LINGER_QUIET_MS),
      chunks: 0,
    };
    linger.deadline.unref();
    linger.quiet.unref();
    this._linger = linger;
  }

  /**
   * No data for LINGER_QUIET_MS, as the timers see it. After a stall of the whole process, data
   * may wait in the socket while the timer fires first (timers run before I/O in Node's loop):
   * look again after the next I/O poll before taking the body to have stopped.
   */
  private _quietSpell(linger: Linger): void {
    const seen = linger.chunks;
    setImmediate(() => {
      if (this._linger !== linger) return;
      if (linger.chunks === seen) this._endLinger(LingerEnd.Finished);
      else linger.quiet.refresh();
    });
  }

  private _endLinger(how: LingerEnd): void {
    const linger = this._linger;
    if (!linger) return;
    this._linger = undefined;
    clearTimeout(linger.deadline);
    clearTimeout(linger.quiet);
    linger.end(how);
  }

  /** The client went away. */
  abort(): void {
    this._paused = false; // the uWS response is gone: never touch it again
    const linger = this._linger;
    if (linger) {
      this._linger = undefined;
      clearTimeout(linger.deadline);
      clearTimeout(linger.quiet);
    }
    // A body that arrived whole is left to its reader, unless part of it is still on disk.
    if (this._done && this._spill?.open !== true) return;
    this._fail(new VeloxError(ErrorCodes.ABORTED, 'The client closed the connection before the body was read', { status: 499 }));
    this._mode = Mode.Discard;
  }

  /** True once a reader took the body (buffered, streamed or discarded). */
  get used(): boolean {
    return this._mode !== Mode.Idle;
  }

  /** True once the last byte arrived. */
  get complete(): boolean {
    return this._done;
  }

  /** Bytes received so far. */
  get received(): number {
    return this._received;
  }

  private _onData(ab: ArrayBuffer, isLast: boolean): void {
    const length = ab.byteLength;
    const received = (this._received += length);
    if (isLast && this._mode === Mode.Buffer && length > 0 && received <= this._limit && this._chunks.length === 0) {
      // The usual body: one final chunk that a read waits for, decoded in place (uWS neuters
      // `ab` when we return). Text straight from a plain view of uWS's bytes (what a Buffer's
      // toString() does, without making the Buffer); a copy when the reader wants the bytes.
      this._done = true;
      const view = new Uint8Array(ab, 0, length);
      return this._settle(this._as === As.Buffer ? Buffer.from(view) : (utf8Slice.call(view, 0, length) as string));
    }
    this._onOtherData(ab, length, isLast);
  }

  /** {@link _onData} for the other cases: kept apart, so that the usual one stays small. */
  private _onOtherData(ab: ArrayBuffer, length: number, isLast: boolean): void {
    const mode = this._mode;
    if (mode >= Mode.Discard) {
      if (isLast) this._done = true;
      if (mode === Mode.Linger) this._lingerData(isLast);
      return;
    }
    if (mode === Mode.Buffer && this._received > this._limit) {
      this._fail(this._overflow());
      this._mode = Mode.Discard;
      if (isLast) this._done = true;
      return;
    }
    // uWS reads on past a pause (see the top of this file): bounded in memory, then a file.
    if (this._paused) return this._onPausedData(ab, length, isLast);
    if (length > 0) {
      const chunk = Buffer.from(new Uint8Array(ab));
      if (mode === Mode.Stream) {
        if (!this._stream!.push(chunk)) this._pause();
      } else {
        if (this._chunks === NO_CHUNKS) this._chunks = [chunk];
        else this._chunks.push(chunk);
        this._queued += length;
        if (mode === Mode.Idle && this._queued >= HIGH_WATER_MARK) this._pause();
      }
    }
    if (isLast) {
      this._done = true;
      if (mode === Mode.Stream) this._stream!.push(null);
      else if (mode === Mode.Buffer) this._settle(this._concat());
    }
  }

  /**
   * {@link _onOtherData} while uWS is paused (only a body without a reader, or a stream, pauses
   * it): queued as before while the bytes waiting stay within `bodyBufferSize`, appended to the
   * body's file past that, and to the file as long as it holds anything (so nothing overtakes).
   * Appended synchronously from uWS's buffer: nothing in memory waits for the disk.
   */
  private _onPausedData(ab: ArrayBuffer, length: number, isLast: boolean): void {
    // uWS restarted its 10 s idle timer for these bytes before calling us (HttpContext.h does so
    // for every 160 KB received), paused or not. Pausing again stops it, as the first pause did:
    // else a long read-back from the file, with nothing arriving meanwhile, gets the connection cut.
    this._res[kUres].pause();
    const mode = this._mode;
    const stream = this._stream;
    if (isLast) this._done = true;
    if (mode === Mode.Stream && stream!.destroyed) {
      // The consumer gave up on the stream: nothing more is kept (the response drains the rest).
      if (this._spill !== undefined) this._spill.close();
      return;
    }
    let spill = this._spill;
    if (spill !== undefined && spill.limit >= 0 && this._received > spill.limit) return this._cut(tooLarge(spill.limit));
    if (length > 0) {
      const config = this._res.server[kConfig];
      const waiting = mode === Mode.Stream ? stream!.readableLength : this._queued;
      if ((spill === undefined || !spill.open) && waiting + length <= config.bodyBufferSize) {
        const chunk = Buffer.from(new Uint8Array(ab));
        if (mode === Mode.Stream) stream!.push(chunk);
        else {
          if (this._chunks === NO_CHUNKS) this._chunks = [chunk];
          else this._chunks.push(chunk);
          this._queued += length;
        }
      } else {
        spill ??= this._spill = new BodySpill(this._res.req, config.bodyTempDir);
        try {
          spill.append(new Uint8Array(ab, 0, length));
        } catch (err) {
          return this._cut(err as VeloxError);
        }
      }
    }
    if (isLast && mode === Mode.Stream && this._spill?.open !== true) stream!.push(null);
  }

  /**
   * uWS was paused and the consumer asks for more, while a spill exists: a stream is fed from
   * the file first (uWS stays paused until the file is read back); a buffered read takes the
   * whole file at once.
   */
  private _resumeSpilled(spill: BodySpill): void {
    if (spill.open) {
      if (this._mode === Mode.Stream) return this._readBack(spill);
      if (this._mode === Mode.Buffer) {
        try {
          this._unspill(spill);
        } catch (err) {
          // Called by read() before its promise exists: fail once it does.
          queueMicrotask(() => this._cut(err as VeloxError));
          return;
        }
      }
    }
    this._paused = false;
    this._res[kUres].resume();
  }

  /** Feeds the stream from the file until the stream is full or the file read back (then closed, and uWS resumed). */
  private _readBack(spill: BodySpill): void {
    const stream = this._stream!;
    let more = true;
    try {
      while (more && spill.pending > 0) more = stream.push(spill.read(READ_BACK));
    } catch (err) {
      return this._cut(err as VeloxError);
    }
    if (spill.pending > 0) return;
    spill.close();
    if (this._done) {
      stream.push(null);
      return;
    }
    // A full stream keeps uWS paused until its next read(), which resumes it.
    if (!more) return;
    this._paused = false;
    this._res[kUres].resume();
  }

  /** Moves what the file holds into the chunk list, after what was queued in memory before it. */
  private _unspill(spill: BodySpill): void {
    const pending = spill.pending;
    const rest = spill.read(pending);
    spill.close();
    if (this._chunks === NO_CHUNKS) this._chunks = [rest];
    else this._chunks.push(rest);
    this._queued += pending;
  }

  /**
   * The body cannot go on (its file failed, or it passed a stream reader's limit): the reader
   * fails with `err`, the answer closes the connection (as for a body over maxBodyLength), and
   * the rest is read and dropped meanwhile.
   */
  private _cut(err: VeloxError): void {
    if (this._mode >= Mode.Discard) return;
    this.overflowed = true;
    this._fail(err);
    this._mode = Mode.Discard;
    this._resume();
  }

  private _lingerData(isLast: boolean): void {
    const linger = this._linger;
    if (!linger) return;
    if (isLast) return this._endLinger(LingerEnd.Finished);
    linger.chunks++;
    linger.quiet.refresh();
  }

  private _concat(): Buffer {
    const chunks = this._chunks;
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this._chunks = NO_CHUNKS;
    return all;
  }

  /** Turns the bytes (or their text, already decoded) into what the reader asked for; may throw on malformed JSON. */
  private _convert(bytes: Buffer | string): unknown {
    if (this._as === As.Buffer) return bytes;
    // No arguments: Buffer's toString goes straight to UTF-8, without looking up an encoding.
    const text = typeof bytes === 'string' ? bytes : bytes.toString();
    return this._as === As.Text ? text : parseJson(text);
  }

  /** Settles the pending read; `bytes` may be a view of uWS's buffer, so it is converted now. */
  private _settle(bytes: Buffer | string): void {
    const resolve = this._resolve;
    const reject = this._reject;
    this._resolve = this._reject = undefined;
    // All of it arrived and went to the reader: nothing is left for discard() to do when the
    // response ends (it returns at its first check), and nothing more comes from uWS.
    this._mode = Mode.Discard;
    try {
      resolve?.(this._convert(bytes));
    } catch (err) {
      reject?.(err);
    }
    // Called from uWS's data callback: whoever awaited the body answers inside uWS's cork. Only
    // once the promise is settled, so that the awaiting code's continuation is queued before the
    // microtask that ends this (see Response[kCork]).
    this._res[kCork]();
  }

  private _fail(err: VeloxError): void {
    this._error = err;
    this._chunks = NO_CHUNKS;
    this._queued = 0;
    if (this._spill !== undefined) this._spill.close();
    const reject = this._reject;
    this._resolve = this._reject = undefined;
    reject?.(err);
    if (this._stream && !this._stream.destroyed) this._stream.destroy(err);
  }

  private _overflow(): VeloxError {
    this.overflowed = true;
    return new VeloxError(ErrorCodes.BODY_TOO_LARGE, `Body is larger than ${this._limit} bytes`, { status: 413 });
  }

  private _pause(): void {
    if (this._paused || this._done) return;
    this._paused = true;
    this._res[kUres].pause();
  }

  private _resume(): void {
    if (!this._paused) return;
    if (this._spill !== undefined) return this._resumeSpilled(this._spill);
    this._paused = false;
    this._res[kUres].resume();
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
  return isOtherJsonType(value);
}

/** {@link isJsonType} for the rarer spellings, parsed (kept apart: the usual ones stay cheap to inline). */
function isOtherJsonType(value: string | undefined): boolean {
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

function tooLarge(limit: number): VeloxError {
  return new VeloxError(ErrorCodes.BODY_TOO_LARGE, `Body is larger than ${limit} bytes`, { status: 413 });
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
  // The usual body: one Content-Length line, no Transfer-Encoding.
  if (length !== undefined && coding === undefined && !conflict) {
    const n = contentLength(length);
    if (n >= 0) return n;
  }
  return otherFraming(length, coding, conflict);
}

/** {@link bodyFraming} for the rest: no body, chunked, or unsafe. */
function otherFraming(length: string | undefined, coding: string | undefined, conflict: boolean): number | string {
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
