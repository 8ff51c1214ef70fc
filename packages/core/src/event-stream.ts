/**
 * Server-Sent Events: `res.sse()` sets the event-stream headers and hands back an
 * {@link EventStream} that frames each event as `event:`, `id:`, `retry:` and `data:` lines.
 */
import { TYPES } from './content-type.ts';
import type { Response } from './response.ts';
import { setHeader } from './response-write.ts';
import { kEndVia } from './symbols.ts';

/**
 * Options of one Server-Sent Event.
 * @example
 * ```ts
 * events.send({ price: 42 }, { event: 'tick', id: '17', retry: 5000 });
 * ```
 */
export interface EventOptions {
  event?: string;
  id?: string;
  /** Reconnection delay for the client, in milliseconds. */
  retry?: number;
}

/**
 * A Server-Sent Events stream, from `res.sse()`.
 * @example
 * ```ts
 * const events = res.sse();
 * events.send({ price: 42 }, { event: 'tick' });
 * ```
 */
export interface EventStream {
  /** Sends one event; objects are sent as JSON. Returns false under backpressure. */
  send(data: unknown, options?: EventOptions): boolean;
  /** Sends a comment line (keeps proxies from timing out). */
  comment(text: string): boolean;
  /** Ends the stream. */
  close(): void;
  /** True once the stream ended or the client left. */
  readonly closed: boolean;
}

/** @internal What `res.sse()` does: headers, the opening comment, and the stream object. */
export function openEventStream(res: Response): EventStream {
  setHeader(res, 'content-type', TYPES.events!);
  setHeader(res, 'cache-control', 'no-cache');
  setHeader(res, 'x-accel-buffering', 'no');
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  res.write(':\n\n');
  return {
    send(data, options = {}) {
      if (closed) return false;
      let frame = '';
      if (options.event) frame += `event: ${oneLine(options.event)}\n`;
      if (options.id) frame += `id: ${oneLine(options.id)}\n`;
      if (options.retry !== undefined) frame += `retry: ${Math.floor(options.retry)}\n`;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      for (const line of text.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
      return res.write(`${frame}\n`);
    },
    comment(text) {
      if (closed) return false;
      return res.write(`: ${oneLine(text)}\n\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      if (res.writable) res[kEndVia]('');
    },
    get closed() {
      return closed;
    },
  };
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}
