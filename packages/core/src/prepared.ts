/**
 * A response head built once and sent many times: for answers whose status and headers are
 * known ahead of the request (a file server's cached files, say). Checked like headers set one
 * by one, then encoded once into the bytes uWS writes after `HTTP/1.1 ` (see HeadCache).
 */
import { Buffer } from 'node:buffer';
import { invalidOption } from './errors.ts';
import { checkName, checkValue, type HeaderList, type HeaderValue, statusLine } from './headers.ts';

/**
 * A status and headers, checked and encoded once, for {@link Response.sendPrepared}. Names are
 * stored lower-case; Content-Length and Transfer-Encoding are refused (uWS writes them from
 * the body), and so is Date (uWS writes it on every answer).
 *
 * @example
 * ```ts
 * import { PreparedHead } from '@velox/core';
 * const head = new PreparedHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'max-age=60' });
 * app.get('/robots.txt', (req, res) => res.sendPrepared(head, 'User-agent: *\nDisallow:\n'));
 * ```
 */
export class PreparedHead {
  /** The status code. */
  readonly status: number;
  /** The headers, as a frozen flat list: lower-case name, value, name, value… */
  readonly headers: readonly HeaderValue[];
  /** @internal The status line and header lines as uWS's writeStatus takes them, encoded. */
  readonly bytes: ArrayBuffer;

  constructor(status: number, headers: Record<string, HeaderValue | number> = {}) {
    if (!Number.isInteger(status) || status < 100 || status > 999) throw invalidOption(`Invalid status code: ${status}`);
    const list: HeaderList = [];
    let text = statusLine(status);
    for (const name in headers) {
      const key = checkName(name);
      if (key === 'content-length' || key === 'transfer-encoding') {
        throw invalidOption(`A PreparedHead cannot hold ${key}: uWS writes it from the body`);
      }
      if (key === 'date') throw invalidOption('A PreparedHead cannot hold date: uWS writes Date on every answer');
      const raw = headers[name]!;
      const value = Array.isArray(raw) ? (Object.freeze(raw.map((v) => checkValue(name, v))) as string[]) : checkValue(name, raw);
      list.push(key, value);
      for (const line of typeof value === 'string' ? [value] : value) text += `\r\n${key}: ${line}`;
    }
    this.status = status;
    this.headers = Object.freeze(list);
    const bytes = Buffer.from(text);
    this.bytes = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  }
}

/**
 * One header checked once, for a hot path that sets the same header on many responses
 * (`X-Powered-By`, a content type, the ETag of a cached body): {@link Response.setPrepared}
 * stores it without checking the name and value again. Same checks as `res.set()`: a name that
 * is not an HTTP token, or a value with CR, LF or another control character, throws
 * `VELOX_ERR_INVALID_HEADER` here, once.
 *
 * @example
 * ```ts
 * import { PreparedHeader } from '@velox/core';
 * const poweredBy = new PreparedHeader('X-Powered-By', 'Velox');
 * app.use((req, res) => { res.setPrepared(poweredBy); });
 * ```
 */
export class PreparedHeader {
  /** The name as given. */
  readonly name: string;
  /** @internal The name lower-case, as the response's header list keeps it. */
  readonly key: string;
  /** The value, as text. */
  readonly value: string;

  constructor(name: string, value: string | number) {
    this.key = checkName(name);
    this.value = checkValue(name, value);
    this.name = name;
    Object.freeze(this);
  }
}
