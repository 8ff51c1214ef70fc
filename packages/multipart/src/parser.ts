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
    write: (chunk) => (stopped ? true : dicer.write(chunk)),
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
    // Look only at what is new, and the 3 chars before it (a terminator may span two pushes).
    const room = this.#limits.headerSize + TERMINATOR.length - before;
    const take = Math.min(data.length, Math.max(room, 0));
    this.#text += data.toString('latin1', 0, take);
    const at = this.#text.indexOf(TERMINATOR, Math.max(0, before - 3));
    if (at < 0) {
      if (take < data.length || this.#text.length > this.#limits.headerSize + TERMINATOR.length - 1) return this.#refuse({ fault: 'size' });
      return undefined;
    }
    if (at > this.#limits.headerSize) return this.#refuse({ fault: 'size' });
    const parsed = parseHeaderBlock(this.#text.slice(0, at), this.#limits.headerPairs);
    if ('fault' in parsed) return this.#refuse(parsed as HeaderFault);
    this.#finished = true;
    const used = at + TERMINATOR.length - before;
    this.#text = '';
    this.#done(parsed);
    return used;
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
