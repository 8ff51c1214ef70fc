/**
 * The types of core's one extension point for a body on its way out: `res.transformBody()`.
 * Compression is the use it was made for (@velox/compress); any plugin that must see or change
 * the bytes a response sends (a minifier, a checksum trailer, a recorder) uses the same point.
 * The write path (response-write.ts) calls it; a response without one pays a field compare.
 */
import type { Response } from './response.ts';

/**
 * Takes over the body of one response, given to `res.transformBody()`. Core calls it once, just
 * before the head goes out: after `beforeHead()` tasks and `onSend` hooks, so the status and
 * headers it sees are final, and it may still change them.
 *
 * `body` is the whole body when the response ends in one piece with nothing written before
 * (`send`, `json`, `html`, `sendStatus`, `redirect`, `sendPrepared`, `end(chunk)`), and `null`
 * when the body is streamed (the first `write()`, `stream()`, `sse()`).
 *
 * It returns:
 * - `undefined`: the body goes out unchanged (the transform steps aside for this response);
 * - a string or bytes (whole bodies only): sent instead, with its exact Content-Length (a
 *   Content-Length header set before is updated to it);
 * - a {@link BodyStream}: core removes Content-Length and sends the head and a chunked body as
 *   the stream produces it.
 *
 * It is also called for HEAD requests and for statuses without a body (1xx, 204, 304), so that
 * it can set headers (a `Vary`); what it returns is then ignored (a stream is destroyed). A
 * transform that throws fails the response: it starts over through the error path, without the
 * transform.
 *
 * @example
 * ```ts
 * import { gzipSync } from 'node:zlib';
 * const gzip: BodyTransform = (res, body) => {
 *   if (body === null || res.req.get('accept-encoding')?.includes('gzip') !== true) return undefined;
 *   res.set('content-encoding', 'gzip').vary('Accept-Encoding');
 *   return gzipSync(body);
 * };
 * app.use((req, res, next) => { res.transformBody(gzip); next(); });
 * ```
 */
export type BodyTransform = (res: Response, body: string | Uint8Array | null) => string | Uint8Array | BodyStream | undefined;

/**
 * The bytes of a transformed body, produced as the app writes (returned by a
 * {@link BodyTransform}). For a whole body core calls `start(sink)`, `write(body)` and `end()`;
 * for a streamed one `start(sink)`, then `write()` for every chunk the app writes (strings as
 * UTF-8 bytes) and `end()` when the app ends (after a `write()` of its last chunk, if any).
 *
 * @example
 * ```ts
 * import { createGzip } from 'node:zlib';
 * function gzipStream(): BodyStream {
 *   const zip = createGzip();
 *   let sink: BodySink;
 *   return {
 *     start(s) { sink = s; zip.on('data', (b) => { if (!sink.write(b)) zip.pause(); }); zip.on('end', () => sink.end()); },
 *     write(chunk) { const ok = zip.write(chunk); zip.flush(); if (!ok) zip.once('drain', () => sink.drain()); return ok; },
 *     end() { zip.end(); },
 *     resume() { zip.resume(); },
 *     destroy() { zip.destroy(); },
 *   };
 * }
 * ```
 */
export interface BodyStream {
  /** Called once, before the first `write()`: where the output goes. */
  start(sink: BodySink): void;
  /** One chunk of the app's body. What `res.write()` returns: false makes the app wait for `'drain'` ({@link BodySink.drain}). */
  write(chunk: Uint8Array): boolean;
  /** The app ended the body: write the rest to the sink, then call its `end()`. */
  end(): void;
  /** The sink can take more: a `sink.write()` returned false and the socket has drained since. */
  resume(): void;
  /** The response is over before `sink.end()`: the client left, it was destroyed, or `sink.fail()` was called. Free what you hold; the sink takes nothing more. */
  destroy(): void;
}

/**
 * Where a {@link BodyStream} sends its bytes: the response, through core's write path.
 *
 * @example
 * ```ts
 * const stream: BodyStream = {
 *   start(sink) { this.sink = sink; },
 *   write(chunk) { return this.sink.write(chunk.map((b) => b ^ 0x20)); },
 *   end() { this.sink.end(); },
 *   resume() { this.sink.drain(); },
 *   destroy() {},
 * } as BodyStream & { sink: BodySink };
 * ```
 */
export interface BodySink {
  /** Sends bytes to the client (the head first, once). False when the socket is full: `resume()` follows once it drained. */
  write(chunk: Uint8Array): boolean;
  /** Ends the response: it completes (`'finish'`, onResponse hooks) now. */
  end(): void;
  /** Tells the app that it may write again: emits `'drain'` on the response. */
  drain(): void;
  /** Gives up: logs `err` and cuts the connection (the client sees the body cut short). */
  fail(err: unknown): void;
}
