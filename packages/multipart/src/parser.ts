/**
 * The only file that knows the parsing library: @fastify/busboy's Dicer, which finds the
 * boundaries (a native `Buffer.indexOf` search) and hands each part's body out as a stream with
 * backpressure. Its own part-header parser is lenient (it drops malformed lines, cuts an oversize
 * header silently and ignores lines past its limit), so each Dicer gets a strict one of ours in
 * its place (see StrictHeaderParser). The rest of the package sees only {@link FormParser}.
 */
import type { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { Dicer } from '@fastify/busboy';
import { type HeaderFault, type PartHeaders, parseHeaderBlock } from './headers.ts';

/** What the parser reports, in the order the body holds it. */
export interface FormEvents {
  /** A part's headers were read; its body follows in `body` (consume or resume it). */
  part(headers: PartHeaders, body: Readable): void;
  /** A part's header block was refused. */
  badHeader(fault: HeaderFault | { fault: 'size' }): void;
  /** The body ended before the closing boundary. */
  unexpectedEnd(): void;
  /** The closing boundary was read and every part's body has ended. */
  finish(): void;
}

/** A multipart parser for one body. */
export interface FormParser {
  /** Feeds a chunk; false when the parser wants no more until `drain`. */
  write(chunk: Buffer): boolean;
  /** The body ended. */
  end(): void;
  /** Stops at once; nothing more is reported. */
  destroy(): void;
  /** Called when the parser takes data again after `write` returned false. */
  onDrain(callback: () => void): void;
}

/** How much of the body the parser and each part stream hold before backpressure. */
const HIGH_WATER_MARK = 64 * 1024;

const TERMINATOR = '\r\n\r\n';
const noop = () => {};

/**
 * Creates a parser for a body with the given boundary (checked by the caller: 1 to 70 characters).
 * @example
 * ```ts
 * const parser = createFormParser('XyZ', { headerSize: 16384, headerPairs: 16 }, events);
 * parser.write(chunk);
 * ```
 */
export function createFormParser(boundary: string, limits: { headerSize: number; headerPairs: number }, events: FormEvents): FormParser {
  const dicer = new Dicer({ boundary, highWaterMark: HIGH_WATER_MARK, partHwm: HIGH_WATER_MARK } as ConstructorParameters<typeof Dicer>[0]);
  const internals = dicer as unknown as DicerInternals;
  let stopped = false;
  const headerParser = new StrictHeaderParser(limits, (headers) => {
    // What Dicer's own header parser does when it is done: leave header mode, tell the part.
    internals._inHeader = false;
    internals._part!.emit('header', headers);
  }, (fault) => {
    if (!stopped) events.badHeader(fault);
  });
  if (!('_hparser' in internals) || typeof internals._hparser?.push !== 'function') {
    throw new Error('@fastify/busboy changed: Dicer has no _hparser to replace; pin the version this package was tested with');
  }
  internals._hparser = headerParser;
  dicer.on('part', (part: Readable) => {
    // Dicer emits 'error' on a part cut by the end of the body: never let it go unhandled.
    part.on('error', noop);
    if (stopped) return void part.resume();
    part.once('header', (headers: PartHeaders) => {
      if (stopped) return void part.resume();
      events.part(headers, part);
    });
  });
  dicer.on('error', (err: Error) => {
    if (stopped) return;
    stopped = true;
    if (/unexpected end/i.test(err.message)) events.unexpectedEnd();
    else events.badHeader({ fault: 'malformed', reason: err.message });
  });
  dicer.on('finish', () => {
    if (!stopped) events.finish();
  });
  return {
    // Dicer's write() says false for any chunk over its highWaterMark (uWS hands out up to
    // 512 KB), even when it took the chunk at once: only a chunk it still holds (a part's stream
    // is full) is backpressure. Pausing the source for the others would cost a pause, a resume
    // and their ticks per chunk. The 'drain' that still follows resumes a flowing source: a no-op.
    write: (chunk) => stopped || dicer.write(chunk) || dicer.writableLength === 0,
    end: () => {
      if (!stopped) dicer.end();
    },
    destroy: () => {
      stopped = true;
      headerParser.stop();
      dicer.destroy();
    },
    onDrain: (callback) => {
      dicer.on('drain', callback);
    },
  };
}

/**
 * Where a terminator that began at the end of `text` (the block so far, which holds none) ends
 * in `data`, as its start relative to `data` (-3 to -1), or undefined when there is none. The
 * earliest start wins, as a search through `text + data` would find it.
 */
function spanningTerminator(text: string, data: Buffer): number | undefined {
  for (let k = TERMINATOR.length - 1; k > 0; k--) {
    if (data.length < TERMINATOR.length - k || !text.endsWith(TERMINATOR.slice(0, k))) continue;
    let i = 0;
    while (i < TERMINATOR.length - k && data[i] === TERMINATOR.charCodeAt(k + i)) i++;
    if (i === TERMINATOR.length - k) return -k;
  }
  return undefined;
}

/** The private fields of Dicer 0.x (as in @fastify/busboy 3.2) this file relies on. */
interface DicerInternals {
  _hparser: { push(data: Buffer): number | undefined; reset(): void } | undefined;
  _inHeader: boolean;
  _part: Readable | undefined;
}

/**
 * Dicer's header-parser protocol: `push(data)` gets the bytes after a boundary and returns how
 * many of them the header block took once it is complete (undefined while it is not);
 * `reset()` comes at every boundary. Refuses, instead of skipping, whatever is not a clean block.
 */
class StrictHeaderParser {
  #limits: { headerSize: number; headerPairs: number };
  #done: (headers: PartHeaders) => void;
  #fail: (fault: HeaderFault | { fault: 'size' }) => void;
  /** The block so far, latin1 (one char per byte). */
  #text = '';
  #started = false;
  #finished = false;
  #failed = false;

  constructor(limits: { headerSize: number; headerPairs: number }, done: (headers: PartHeaders) => void, fail: (fault: HeaderFault | { fault: 'size' }) => void) {
    this.#limits = limits;
    this.#done = done;
    this.#fail = fail;
  }

  push(data: Buffer): number | undefined {
    if (this.#failed || this.#finished) return undefined;
    this.#started = true;
    const before = this.#text.length;
    const max = this.#limits.headerSize;
    // Where the terminator starts, relative to `data` (negative when it began in an earlier push).
    // Searched in the bytes: Dicer pushes the whole rest of its chunk (up to 512 KB, most of it
    // a file's body), and only the header block itself is ever turned into a string.
    let at = before > 0 ? spanningTerminator(this.#text, data) : undefined;
    if (at === undefined) {
      // Past `max + 4 - before` bytes, a terminator would end a block over the limit anyway.
      const room = max + TERMINATOR.length - before;
      const found = (data.length > room ? data.subarray(0, Math.max(room, 0)) : data).indexOf(TERMINATOR, 0, 'latin1');
      if (found < 0) {
        if (before + data.length > max + TERMINATOR.length - 1) return this.#refuse({ fault: 'size' });
        this.#text += data.toString('latin1');
        return undefined;
      }
      at = found;
    }
    if (before + at > max) return this.#refuse({ fault: 'size' });
    const block = at < 0 ? this.#text.slice(0, before + at) : this.#text + data.toString('latin1', 0, at);
    const parsed = parseHeaderBlock(block, this.#limits.headerPairs);
    if ('fault' in parsed) return this.#refuse(parsed as HeaderFault);
    this.#finished = true;
    this.#text = '';
    this.#done(parsed);
    return at + TERMINATOR.length;
  }

  reset(): void {
    // A boundary while a header block was being read: the block was cut short.
    if (this.#started && !this.#finished && !this.#failed && this.#text.length > 0) {
      this.#refuse({ fault: 'malformed', reason: "a part's header block is cut short by a boundary" });
    }
    this.#text = '';
    this.#started = false;
    this.#finished = false;
  }

  /** No more reports (the form failed or was abandoned). */
  stop(): void {
    this.#failed = true;
  }

  #refuse(fault: HeaderFault | { fault: 'size' }): undefined {
    this.#failed = true;
    this.#text = '';
    this.#fail(fault);
    return undefined;
  }
}
