/**
 * A body compressed through one of zlib's streams, as core's `BodyStream`: for large whole bodies
 * and for streamed ones (`write`, `stream`, `sse`). Backpressure both ways: zlib's `write()`
 * result goes back to the app (its `'drain'` becomes the response's), and a socket that is full
 * (`sink.write()` false) pauses zlib's output until core says `resume()`. A streamed body is
 * flushed after every write, so each piece reaches the client as it is written. Whatever ends the
 * response early (the client leaves, `res.destroy()`, a zlib error) destroys the zlib stream.
 */
import type { Buffer } from 'node:buffer';
import type { BodySink, BodyStream } from '@velox/core';
import type { Codec, ZlibStream } from './codings.ts';
import { streamError } from './errors.ts';

/**
 * Counters of this process's zlib streams, for tests (not part of the public API): how many are
 * open (a client that leaves mid-stream must leave none behind), and how often a full socket
 * paused one's output.
 * @internal
 */
export const zlibStats = { open: 0, pauses: 0 };

/** @internal How many zlib streams opened by this package are not closed yet. */
export function openZlibStreams(): number {
  return zlibStats.open;
}

/** @internal */
export class ZlibBody implements BodyStream {
  readonly #codec: Codec;
  readonly #zip: ZlibStream;
  /** Flush after each write (a streamed body); a whole body is written once and ended. */
  readonly #flush: boolean;
  #sink: BodySink | null = null;
  /** Over: ended, destroyed or failed; nothing more reaches the sink. */
  #done = false;
  /** A write returned false and the app waits for 'drain'. */
  #waiting = false;

  constructor(codec: Codec, flush: boolean) {
    this.#codec = codec;
    this.#flush = flush;
    const zip = codec.stream();
    this.#zip = zip;
    zlibStats.open++;
    zip.once('close', onClose);
  }

  start(sink: BodySink): void {
    this.#sink = sink;
    const zip = this.#zip;
    zip.on('data', this.#onData);
    zip.once('end', this.#onEnd);
    zip.on('error', this.#onError);
  }

  write(chunk: Uint8Array): boolean {
    if (this.#done) return false;
    const zip = this.#zip;
    const ok = zip.write(chunk);
    if (this.#flush) zip.flush(this.#codec.flushKind);
    if (!ok && !this.#waiting) {
      this.#waiting = true;
      zip.once('drain', this.#onDrain);
    }
    return ok;
  }

  end(): void {
    if (this.#done) return;
    this.#zip.end();
  }

  resume(): void {
    if (!this.#done) this.#zip.resume();
  }

  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    this.#zip.destroy();
  }

  #onData = (chunk: Buffer): void => {
    if (this.#done) return;
    if (!this.#sink!.write(chunk)) {
      zlibStats.pauses++;
      this.#zip.pause();
    }
  };

  #onEnd = (): void => {
    if (this.#done) return;
    this.#done = true;
    this.#sink!.end();
  };

  #onDrain = (): void => {
    this.#waiting = false;
    if (!this.#done) this.#sink!.drain();
  };

  #onError = (err: unknown): void => {
    if (this.#done) return;
    this.#done = true;
    this.#zip.destroy();
    this.#sink!.fail(streamError(this.#codec.coding, err));
  };
}

function onClose(): void {
  zlibStats.open--;
}
