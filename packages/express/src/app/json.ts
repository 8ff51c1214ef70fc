/**
 * `express.json(options)`: Express 4's body-parser 1.x JSON parser, with its common case read
 * through Velox's own body reader. body-parser reads the request as a Node stream (raw-body,
 * iconv-lite) piece by piece; a request here is answered by uWS, whose body Velox already
 * gathers into one buffer. A request with a body of declared length within `limit`, typed
 * `application/json` (with `charset=utf-8` or none), not compressed, is read with `req.text()`
 * and parsed with `JSON.parse` (strict: the first character `{` or `[`; empty: `{}`; a byte
 * order mark dropped, as iconv-lite drops it). When that parse fails, the bytes go through
 * body-parser itself, replayed as a stream, so the error is body-parser's own (status 400,
 * `type: 'entity.parse.failed'`, its message and `body`). Every other request goes to
 * body-parser untouched: another type or charset, chunked, compressed, over the limit, the
 * `verify` option, a `type` option other than the default.
 */
import { Readable } from 'node:stream';
import bytes from 'bytes';
import { type ParserFactory, parsers } from './libs.ts';
import type { Next, Req, Res } from './router.ts';

/** The Content-Type values read here (lower-case); any other goes to body-parser. */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const DECIMAL = /^\d{1,15}$/;

let quickReads = 0;
let replays = 0;

/** @internal Bodies read through Velox, and those of them then handed to body-parser (tests, diagnostics). */
export function jsonReads(): { quick: number; replayed: number } {
  return { quick: quickReads, replayed: replays };
}

/** The request body-parser reads when the quick parse failed: the same bytes, as a stream. */
function replayOf(req: Req, text: string): Readable & Record<string, unknown> {
  const replay = Readable.from([Buffer.from(text, 'utf8')], { objectMode: false }) as Readable & Record<string, unknown>;
  replay.headers = { ...req.headers, 'content-length': String(Buffer.byteLength(text)) };
  replay.method = req.method;
  replay.url = req.url;
  return replay;
}

/**
 * Express 4's `express.json([options])` (body-parser 1.x: `limit`, `strict`, `reviver`, `type`,
 * `inflate`, `verify`), reading its common case through Velox (see the file's comment).
 * @example
 * ```ts
 * app.use(express.json({ limit: '1mb' }));
 * app.post('/items', (req, res) => res.status(201).json(req.body));
 * ```
 */
export function jsonParser(options?: Record<string, any>): (req: Req, res: Res, next: Next) => void {
  return quickJson(parsers.json, true, options);
}

/**
 * @internal `express.json()` of either major: `factory` is that major's body-parser json (1.x or
 * 2.x), which gets every request the short road does not take. Both read the short road's
 * requests alike (the default type and limit, strict's first-character rule, `{}` for an empty
 * body, a UTF-8 byte order mark dropped, errors from the parser itself). `presetBody`: body-parser
 * 1 sets `req.body` to `{}` before it reads (2.x leaves it as it is until the parse succeeds).
 */
export function quickJson(factory: ParserFactory, presetBody: boolean, options?: Record<string, any>): (req: Req, res: Res, next: Next) => void {
  const slow = factory(options);
  const opts = options ?? {};
  const limit = opts.limit === undefined || opts.limit === null ? 102400 : bytes.parse(opts.limit);
  const quick = typeof limit === 'number' && opts.verify === undefined && (opts.type === undefined || opts.type === 'application/json');
  if (!quick) return slow;
  const strict = opts.strict !== false;
  const reviver = opts.reviver;
  return function jsonParser(req: Req, res: Res, next: Next): void {
    const headers = req.headers;
    const type = headers['content-type'];
    const length = headers['content-length'];
    if (
      req._body ||
      typeof req.text !== 'function' ||
      typeof type !== 'string' ||
      !JSON_TYPES.has(type.toLowerCase()) ||
      typeof length !== 'string' ||
      !DECIMAL.test(length) ||
      Number(length) > limit ||
      headers['transfer-encoding'] !== undefined ||
      (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity')
    ) {
      return slow(req, res, next);
    }
    if (presetBody) req.body = req.body || {};
    req._body = true;
    quickReads++;
    req.text().then(
      (read: string) => {
        const text = read.charCodeAt(0) === 0xfeff ? read.slice(1) : read;
        let value: unknown;
        if (text.length === 0) value = {};
        else {
          const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
          if (!strict || first === '{' || first === '[') {
            try {
              value = JSON.parse(text, reviver);
            } catch {
              value = undefined;
            }
          }
        }
        if (value === undefined) {
          // Not JSON: body-parser reads the same bytes and answers with its own error.
          replays++;
          const replay = replayOf(req, text);
          slow(replay, res, (err?: unknown) => {
            if (err) return next(err);
            req.body = replay.body;
            next();
          });
          return;
        }
        req.body = value;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}
