/**
 * A response prepared once and sent as is: the body in a buffer, the head encoded once
 * (core's PreparedHead), an ETag from the body's hash, and 304 Not Modified when the request's
 * If-None-Match holds it. Per request: one header read and one comparison.
 */
import { createHash } from 'node:crypto';
import { PreparedHead, type Request, type Response } from '@velox/core';

/** A body with its prepared heads. */
export class PreparedBody {
  readonly body: Buffer;
  readonly etag: string;
  readonly #ok: PreparedHead;
  readonly #notModified: PreparedHead;

  constructor(body: Buffer | string, contentType: string, cacheControl: string) {
    this.body = typeof body === 'string' ? Buffer.from(body) : body;
    this.etag = `"${createHash('sha256').update(this.body).digest('base64url').slice(0, 27)}"`;
    this.#ok = new PreparedHead(200, { 'content-type': contentType, etag: this.etag, 'cache-control': cacheControl });
    this.#notModified = new PreparedHead(304, { etag: this.etag, 'cache-control': cacheControl });
  }

  /** Answers 200 with the body, or 304 when the client holds this version. */
  send(req: Request, res: Response): void {
    const given = req.get('if-none-match');
    if (given !== undefined && matches(given, this.etag)) res.sendPrepared(this.#notModified);
    else res.sendPrepared(this.#ok, this.body);
  }
}

/** If-None-Match's weak comparison: any listed tag, W/ or not, or `*`. */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
