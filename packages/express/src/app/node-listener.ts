/**
 * An app of `@velox/express` as a Node request listener (`http.createServer(app)`,
 * `https.createServer(options, app)`, `supertest(app)`): each of Node's requests is forwarded to
 * the Velox server `app.listen()` would build (application.ts, `nodeServerOf()`) through core's
 * `inject()`, a real loopback connection, and its answer is piped back into Node's response. So
 * the app behaves as it does on `app.listen()`: one engine, Velox's, whoever holds the socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { InjectInit, Server } from '@velox/core';

/**
 * Headers of one connection (RFC 9110 7.6.1), which Node handles on its side and uWS on the
 * other; `expect` too (Node has answered `100 Continue` before the app is called).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect', 'http2-settings']);

/**
 * Answers Node's `req`/`res` with `server` (built by `serverOf()` at the first request): the
 * request, its raw target and Host, and its body streamed as it arrives, go through
 * `server.inject()`; the answer's status, reason phrase, headers (each Set-Cookie apart) and body
 * (streamed, at the pace Node's client reads it) come back into `res`. The client leaving aborts
 * the inject, which closes the loopback connection: the app sees its client gone.
 */
export function answerNodeRequest(serverOf: () => Server, req: IncomingMessage, res: ServerResponse): void {
  const target = originForm(req.url ?? '/');
  if (target === undefined) {
    res.statusCode = 400;
    res.end();
    return;
  }
  const aborted = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) aborted.abort();
  };
  res.once('close', onClose);

  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (HOP_BY_HOP.has(name.toLowerCase())) continue;
    try {
      headers.append(name, raw[i + 1]!);
    } catch {
      // A value Node's parser let through and fetch's Headers refuses (a NUL, say): left out.
    }
  }
  const method = req.method ?? 'GET';
  // A WHATWG Request has no body for GET and HEAD: theirs, rare, is read and dropped.
  const withBody = method !== 'GET' && method !== 'HEAD' && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');
  if (!withBody) req.resume();
  const init: InjectInit & { duplex?: 'half' } = { method, headers, target, signal: aborted.signal };
  if (withBody) {
    init.body = req as unknown as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  let server: Server;
  try {
    server = serverOf();
  } catch (err) {
    fail(res, err);
    return;
  }
  server.inject('http://localhost/', init).then(
    (answer) => reply(answer, res),
    (err: unknown) => {
      if (!aborted.signal.aborted) fail(res, err);
    },
  );
}

/** The request target as uWS takes it: origin-form (`/path?query`); an absolute-form one (a proxy's) is reduced to it. */
function originForm(url: string): string | undefined {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.pathname + parsed.search;
  } catch {
    // neither form
  }
  return undefined;
}

/** Writes the app's answer into Node's response. */
function reply(answer: Response, res: ServerResponse): void {
  if (res.destroyed) {
    void answer.body?.cancel();
    return;
  }
  for (const [name, value] of answer.headers) {
    if (name === 'set-cookie' || HOP_BY_HOP.has(name)) continue;
    res.setHeader(name, value);
  }
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  // uWS dated the answer already.
  if (answer.headers.has('date')) res.sendDate = false;
  // An empty reason phrase leaves Node's own (its STATUS_CODES), as for any Node app.
  res.writeHead(answer.status, answer.statusText || undefined);
  if (answer.body === null) {
    res.end();
    return;
  }
  // pipeline() waits on Node's client (write() → 'drain'), and cuts the loopback connection if
  // Node's client leaves first.
  pipeline(Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>), res, () => {});
}

/** No answer came from the app (a method a WHATWG Request refuses, a failed connection): 405 or 500 from here. */
function fail(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // TRACE and TRACK: fetch's Request refuses them, so they cannot be forwarded.
  const refusedMethod = err instanceof TypeError && /HTTP method is unsupported/.test(err.message);
  res.statusCode = refusedMethod ? 405 : 500;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(refusedMethod ? 'Method Not Allowed' : 'Internal Server Error');
}
