/**
 * `res.stream()`: a Readable piped into the response with backpressure. With a known size the
 * body goes out with Content-Length through uWS's `tryEnd`; otherwise chunked, through `write`.
 */
import type { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { headersSent } from './errors.ts';
import type { Response } from './response.ts';
import { setHeader, tryEndChunk } from './response-write.ts';
import { kEndVia, kHeadersSent, kHold, kIsHead, kReplaced } from './symbols.ts';

/**
 * Options of `res.stream()`.
 * @example
 * ```ts
 * await res.stream(createReadStream(file), { size: (await stat(file)).size });
 * ```
 */
export interface StreamOptions {
  /** Total size in bytes, when known: sent as Content-Length and written with uWS's `tryEnd`. */
  size?: number;
}

/** @internal What `res.stream()` does. */
export function streamTo(res: Response, source: Readable, options: StreamOptions): Promise<void> {
  const hold = res[kHold];
  if (hold?.holds()) {
    return new Promise<void>((resolve, reject) => {
      const go = (ok: boolean) => {
        if (ok) res.stream(source, options).then(resolve, reject);
        else {
          source.destroy();
          resolve();
        }
      };
      if (!hold.defer(go, true)) go(true);
    });
  }
  const size = options.size;
  return new Promise<void>((resolve, reject) => {
    if (!res.writable) {
      source.destroy();
      return res.aborted ? resolve() : reject(headersSent());
    }
    let sent = 0;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      res.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onClose = () => {
      source.destroy();
      finish();
    };
    res.on('close', onClose);
    source.on('error', (err) => {
      if (!res.headersSent) return finish(err);
      // Part of the body is out: all we can do is cut the connection so the client sees it.
      res.destroy();
      finish(err);
    });
    const head = res[kIsHead];
    // A write or end a middleware replaced (compression) must see every chunk: no tryEnd then.
    // Nor once write() sent the head: the body goes on the way it started.
    if (size === undefined || head || res[kReplaced] || res[kHeadersSent]) {
      // A body transform not opened yet sees the length (and keeps it, stepping aside: then the
      // chunks go out through the declared-length path, with tryEnd).
      if (size !== undefined && !head && typeof hold?.transform === 'function' && !res[kHeadersSent] && !res.hasHeader('content-length')) {
        setHeader(res, 'content-length', size);
      }
      source.on('data', (chunk: Buffer) => {
        if (!res.write(chunk) && !res.aborted) {
          source.pause();
          res.once('drain', () => source.resume());
        }
      });
      source.on('end', () => {
        if (res.writable) {
          if (head && size !== undefined && !res.hasHeader('content-length')) setHeader(res, 'content-length', size);
          res[kEndVia]('');
        }
        finish();
      });
      return;
    }
    source.on('data', (chunk: Buffer) => {
      if (!res.writable) return;
      const last = sent + chunk.length >= size;
      const taken = tryEndChunk(res, chunk, size, last, () => source.resume());
      sent += chunk.length;
      if (taken === 2) source.destroy();
      else if (taken === 0) source.pause();
    });
    source.on('end', () => {
      // The source gave fewer bytes than promised: the client would wait forever.
      if (res.writable) res.destroy();
      finish();
    });
  });
}
