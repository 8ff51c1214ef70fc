/**
 * The request body: read from uWS only when someone asks for it (or when the handler went async
 * before asking, since uWS hands out body data only to a reader attached in its callback).
 *
 * Two ways to consume it, once: buffered (`text`, `json`, `buffer`, bounded by maxBodyLength),
 * or streamed (a Readable made on demand; uWS is paused while the consumer is slow).
 */
import { Readable } from 'node:stream';
import type { HttpResponse } from 'uWebSockets.js';
import { ErrorCodes, VeloxError } from './errors.ts';

/** Bytes queued with no consumer, or not yet taken by a slow stream, before uWS is paused. */
const HIGH_WATER_MARK = 64 * 1024;

const enum Mode {
  Idle = 0,
  Buffer = 1,
  Stream = 2,
  Discard = 3,
}

export class Body {
  #ures: HttpResponse;
  #chunks: Buffer[] = [];
  #queued = 0;
  #received = 0;
  #done = false;
  #paused = false;
  #mode = Mode.Idle;
  #error: VeloxError | undefined;
  #limit = Infinity;
  #text = false;
  #resolve: ((value: any) => void) | undefined;
  #reject: ((err: unknown) => void) | undefined;
  #stream: Readable | undefined;
  /** Set when the body went over the limit: the connection must close after the answer. */
  overflowed = false;

  constructor(ures: HttpResponse, readonly expectedLength: number) {
    this.#ures = ures;
    ures.onData((chunk, isLast) => this.#onData(chunk, isLast));
  }

  /** Reads the whole body as a Buffer, or as a string when `text` is true. */
  read(limit: number, text: boolean): Promise<any> {
    if (this.#mode !== Mode.Idle) return Promise.reject(consumed());
    this.#mode = Mode.Buffer;
    if (this.#error) return Promise.reject(this.#error);
    this.#limit = limit;
    this.#text = text;
    if (this.expectedLength > limit || this.#received > limit) return Promise.reject(this.#overflow());
    if (this.#done) return Promise.resolve(this.#concat());
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
    this.#chunks = [];
    this.#queued = 0;
    if (this.#error) stream.destroy(this.#error);
    else if (this.#done) stream.push(null);
    return stream;
  }

  /** The response is over: drop what comes, and let uWS read on so the connection stays usable. */
  discard(): void {
    if (this.#mode === Mode.Discard) return;
    const wasStreaming = this.#mode === Mode.Stream;
    this.#mode = Mode.Discard;
    this.#chunks = [];
    this.#queued = 0;
    if (!this.#done && wasStreaming && this.#stream && !this.#stream.destroyed) {
      this.#stream.destroy(new VeloxError(ErrorCodes.ABORTED, 'The response ended before the body was read', { status: 400 }));
    }
    this.#resume();
  }

  /** The client went away. */
  abort(): void {
    this.#paused = false; // the uWS response is gone: never touch it again
    if (this.#done) return;
    this.#fail(new VeloxError(ErrorCodes.ABORTED, 'The client closed the connection before the body was read', { status: 499 }));
    this.#mode = Mode.Discard;
  }

  /** True once the last byte arrived. */
  get complete(): boolean {
    return this.#done;
  }

  #onData(ab: ArrayBuffer, isLast: boolean): void {
    const length = ab.byteLength;
    this.#received += length;
    const mode = this.#mode;
    if (mode === Mode.Discard) {
      if (isLast) this.#done = true;
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
        return this.#settle(this.#text ? view.toString('utf8') : Buffer.from(view));
      }
      const chunk = Buffer.from(new Uint8Array(ab));
      if (mode === Mode.Stream) {
        if (!this.#stream!.push(chunk)) this.#pause();
      } else {
        this.#chunks.push(chunk);
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

  #concat(): Buffer | string {
    const chunks = this.#chunks;
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.#chunks = [];
    return this.#text ? all.toString('utf8') : all;
  }

  #settle(value: Buffer | string): void {
    const resolve = this.#resolve;
    this.#resolve = this.#reject = undefined;
    resolve?.(value);
  }

  #fail(err: VeloxError): void {
    this.#error = err;
    this.#chunks = [];
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

function consumed(): VeloxError {
  return new VeloxError(ErrorCodes.BODY_CONSUMED, 'The body was already read', { status: 500, expose: false });
}
