/**
 * `app.inject()`: a request answered by the whole lifecycle without `listen()`. The server opens
 * a listen socket of its own on 127.0.0.1, port 0 (hidden: `listening` does not count it), and
 * the request goes over a real loopback connection to it, so every behaviour is uWS's own: no
 * in-memory stand-in to keep in step with it. The socket closes again as soon as no inject waits
 * for an answer, and each connection closes after its answer (`Connection: close`), so a process
 * that never calls `close()` can still exit.
 */
import { type ClientRequest, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { us_listen_socket } from '@based/uws';
import { ErrorCodes, VeloxError } from './errors.ts';

/**
 * What {@link Server.inject} takes after the input: a `RequestInit`, as `fetch()` takes it, plus
 * `target`.
 * @example
 * ```ts
 * const init: InjectInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };
 * const res = await app.inject('/items', init);
 * ```
 */
export interface InjectInit extends RequestInit {
  /**
   * The request target written on the request line as it is, in place of the URL's path and
   * query (which the URL parser normalises: `/a/../b` becomes `/b`). For a forwarder that must
   * pass on the target it received (the Node listener of `@velox/express`). Must start with `/`.
   */
  target?: string;
}

/** What the hidden socket needs from its server, handed down at construction. */
export interface InjectHost {
  /** The "get ready" path of `listen()`: plugins loaded, routes mounted. */
  prepare(): Promise<void>;
  /** Binds a listen socket on 127.0.0.1, port 0. */
  bind(): Promise<{ socket: us_listen_socket; port: number }>;
  /** Closes a listen socket `bind()` gave. */
  unbind(socket: us_listen_socket): void;
  /** True once `close()` was called (and `listen()` not since). */
  closed(): boolean;
  /** True when the server speaks TLS. */
  tls: boolean;
}

/**
 * The hidden listen socket of one server: opened by the first inject that needs it, shared by
 * every inject in flight, closed when the last one has its answer's head (or failed). The
 * connections of answers still streaming stay open; only new connections need the socket.
 */
export class InjectSocket {
  readonly #host: InjectHost;
  #socket: us_listen_socket | undefined;
  #port = 0;
  #opening: Promise<void> | undefined;
  /** Injects between acquire() and release(). */
  #waiting = 0;
  /** True once an inject got the server ready, until close(): close() then has work to do. */
  started = false;

  constructor(host: InjectHost) {
    this.#host = host;
  }

  /** True when the server speaks TLS. */
  get tls(): boolean {
    return this.#host.tls;
  }

  /** Resolves with the port to connect to (opening the socket when needed); call release() once after. */
  async acquire(): Promise<number> {
    if (this.#host.closed()) throw closedError();
    this.#waiting++;
    try {
      if (this.#socket === undefined) {
        this.#opening ??= this.#open();
        await this.#opening;
      }
      return this.#port;
    } catch (err) {
      this.release();
      throw err;
    }
  }

  /** One inject no longer needs the socket. */
  release(): void {
    if (--this.#waiting === 0 && this.#opening === undefined) this.#shut();
  }

  /** The server closes: the socket goes now, whoever waits. */
  close(): void {
    this.started = false;
    this.#shut();
  }

  async #open(): Promise<void> {
    try {
      this.started = true;
      await this.#host.prepare();
      if (this.#host.closed()) throw closedError();
      const { socket, port } = await this.#host.bind();
      this.#socket = socket;
      this.#port = port;
      // close() came while binding.
      if (this.#host.closed()) {
        this.#shut();
        throw closedError();
      }
    } finally {
      this.#opening = undefined;
      if (this.#waiting === 0) this.#shut();
    }
  }

  #shut(): void {
    const socket = this.#socket;
    if (socket === undefined) return;
    this.#socket = undefined;
    this.#host.unbind(socket);
  }
}

function closedError(): VeloxError {
  return new VeloxError(
    ErrorCodes.SERVER_CLOSED,
    'inject() on a server that was closed: make a new Server (or listen() again) to answer more requests',
  );
}

/** An origin-form request target, as Node's client writes it (no space, no control character). */
const TARGET = /^\/[\u0021-\u00ff]*$/;
/** Statuses whose response has no body, whatever was sent (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Headers inject sets itself: the connection's own, and the body's framing. */
const OWN_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);
/** How many bytes of an answer are read ahead of the Response's reader. */
const READ_AHEAD = 1024 * 1024;
/** The largest answer head inject reads (Node's client allows 16 KB by default; an app may send more). */
const MAX_ANSWER_HEAD = 1024 * 1024;

/** See {@link Server.inject}. */
export async function inject(socket: InjectSocket, input: string | URL | Request, init?: InjectInit): Promise<Response> {
  let target: string | undefined;
  let requestInit: RequestInit | undefined = init;
  if (init !== undefined && init !== null && 'target' in init) {
    ({ target, ...requestInit } = init);
    if (target !== undefined && (typeof target !== 'string' || !TARGET.test(target))) {
      throw new TypeError(`inject(): target must start with "/" and hold no space or control character, got ${JSON.stringify(target)}`);
    }
  }
  const request =
    input instanceof Request
      ? requestInit === undefined
        ? input
        : new Request(input, requestInit)
      : new Request(new URL(String(input), 'http://localhost'), requestInit);
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`inject(): the URL must be a path or an http: or https: URL, got ${url.protocol} (${request.url})`);
  }
  if (request.signal.aborted) throw request.signal.reason;

  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) if (!OWN_HEADERS.has(name)) headers[name] = value;
  headers.host ??= url.host;
  headers.connection = 'close';
  // A body whose length is known (a string, bytes, a Blob, FormData, URLSearchParams) is sent
  // with its Content-Length, as fetch() sends it; a stream goes chunked, or under the
  // Content-Length given with it.
  let bytes: Uint8Array | undefined;
  let stream: ReadableStream<Uint8Array> | undefined;
  if (request.body !== null) {
    const given = init?.body;
    const streamed = given === undefined || given === null ? input instanceof Request : isStream(given);
    if (streamed) {
      stream = request.body;
      const length = request.headers.get('content-length');
      if (length !== null) headers['content-length'] = length;
      else headers['transfer-encoding'] = 'chunked';
    } else {
      bytes = new Uint8Array(await request.arrayBuffer());
      headers['content-length'] = String(bytes.byteLength);
    }
  }

  const port = await socket.acquire();
  return new Promise<Response>((resolve, reject) => {
    let waiting = true;
    let client: ClientRequest | undefined;
    const onAbort = (): void => {
      if (settle()) reject(request.signal.reason);
      client?.destroy(request.signal.reason);
    };
    const settle = (): boolean => {
      if (!waiting) return false;
      waiting = false;
      request.signal.removeEventListener('abort', onAbort);
      socket.release();
      return true;
    };
    const options: RequestOptions = {
      host: '127.0.0.1',
      port,
      method: request.method,
      path: target ?? url.pathname + url.search,
      headers,
      agent: false,
      setHost: false,
      maxHeaderSize: MAX_ANSWER_HEAD,
    };
    try {
      client = socket.tls
        ? httpsRequest({ ...options, rejectUnauthorized: false, ...(url.hostname !== '' && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0 ? { servername: url.hostname } : {}) })
        : httpRequest(options);
    } catch (err) {
      settle();
      reject(err);
      return;
    }
    const connection = client;
    connection.on('response', (incoming: IncomingMessage) => {
      if (!settle()) {
        incoming.destroy();
        return;
      }
      // The process may exit while nobody reads the answer: the socket keeps it alive only
      // while a read of the body waits (webBody()).
      incoming.socket?.unref();
      const status = incoming.statusCode ?? 0;
      // An answer that refuses the body still coming and closes the connection (a 413, say):
      // stop sending (RFC 9112 9.3), so the server need not drop the rest and its close does not
      // reset the connection under the answer. A chunked body ends where it is; one of declared
      // length must be sent whole.
      if (stopUpload !== undefined && status >= 400 && headers['transfer-encoding'] === 'chunked' && /\bclose\b/i.test(incoming.headers.connection ?? '')) {
        stopUpload();
      }
      const answerHeaders = new Headers();
      const raw = incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) answerHeaders.append(raw[i]!, raw[i + 1]!);
      let body: ReadableStream<Uint8Array> | null = null;
      if (request.method === 'HEAD' || NULL_BODY.has(status)) incoming.resume();
      else body = webBody(incoming, request.signal);
      resolve(toResponse(status, incoming.statusMessage ?? '', answerHeaders, body, request.url));
    });
    // The error of the request's body stream, which the connection's own ("socket hang up") follows.
    let bodyError: Error | undefined;
    let stopUpload: (() => void) | undefined;
    connection.on('error', (err) => {
      const cause = bodyError ?? err;
      if (settle()) reject(new TypeError(`inject(): ${request.method} ${options.path} failed before an answer came: ${cause.message}`, { cause }));
    });
    if (request.signal.aborted) {
      onAbort();
      return;
    }
    request.signal.addEventListener('abort', onAbort);
    if (stream !== undefined) {
      stopUpload = upload(stream, connection, (err) => (bodyError = err));
    } else {
      connection.end(bytes);
    }
  });
}

/**
 * Streams a request body into the connection as the reader gives it, waiting for the connection
 * to drain. An error of the body destroys the connection (after `failed(err)`). Returns a
 * function that stops the upload and ends the request where it is (the last chunk of a chunked
 * body): for an answer that came first and refuses the body.
 */
function upload(stream: ReadableStream<Uint8Array>, connection: ClientRequest, failed: (err: Error) => void): () => void {
  const reader = stream.getReader();
  let stopped = false;
  // The connection closed before the body was all sent (an abort, an answer and its close):
  // the body's source is told, and the read waiting on it ends.
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    reader.cancel().catch(() => {});
  };
  connection.once('close', stop);
  const drained = (): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        connection.off('drain', done);
        connection.off('close', done);
        resolve();
      };
      connection.on('drain', done);
      connection.on('close', done);
    });
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || stopped || connection.destroyed) break;
        if (!connection.write(value)) await drained();
      }
      stopped = true;
      if (!connection.destroyed) connection.end();
    } catch (err) {
      stopped = true;
      failed(err as Error);
      connection.destroy(err as Error);
    }
  })();
  return stop;
}

/** A body given as a stream (a ReadableStream, or an async iterable such as a Node stream) rather than whole. */
function isStream(body: unknown): boolean {
  if (body instanceof ReadableStream) return true;
  return typeof body === 'object' && body !== null && typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/**
 * The answer's body as a ReadableStream. Up to {@link READ_AHEAD} bytes are read from the
 * connection ahead of the reader (so an answer of that size is off the server at once, even when
 * nobody reads it, and the process can exit); beyond, the connection waits for the reader, which
 * holds the sender back. Chunks reach the reader as they arrive (a streamed answer is readable
 * before it ends). Cancelling the body, or aborting the request's signal, closes the connection.
 * While a read waits, the connection keeps the process alive; otherwise it does not.
 */
function webBody(incoming: IncomingMessage, signal: AbortSignal): ReadableStream<Uint8Array> {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const connection: Socket | null = incoming.socket;
  incoming.on('data', (chunk: Buffer) => {
    queue.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    queued += chunk.byteLength;
    if (queued >= READ_AHEAD) incoming.pause();
    wake?.();
  });
  incoming.on('end', () => {
    ended = true;
    wake?.();
  });
  incoming.on('error', (err) => {
    failure ??= err;
    wake?.();
  });
  incoming.on('close', () => {
    if (!ended) failure ??= new Error('the connection closed before the end of the answer');
    wake?.();
  });
  const onAbort = (): void => {
    failure ??= signal.reason;
    incoming.destroy();
  };
  signal.addEventListener('abort', onAbort);
  const done = (): void => signal.removeEventListener('abort', onAbort);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queue.length === 0 && !ended && failure === undefined) {
          connection?.ref();
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          connection?.unref();
        }
        const chunk = queue.shift();
        if (chunk !== undefined) {
          queued -= chunk.byteLength;
          if (queued < READ_AHEAD && incoming.isPaused()) incoming.resume();
          controller.enqueue(chunk);
          return;
        }
        done();
        if (failure !== undefined) throw failure;
        controller.close();
      },
      cancel() {
        done();
        incoming.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The WHATWG Response for an answer. Its `url` is the request's; a status the Response
 * constructor refuses (outside 200 to 599: an app's own 600-999) is set on the object itself.
 */
function toResponse(status: number, statusText: string, headers: Headers, body: ReadableStream<Uint8Array> | null, url: string): Response {
  const fits = status >= 200 && status <= 599;
  const response = new Response(body, { status: fits ? status : 200, statusText, headers });
  if (!fits) Object.defineProperties(response, { status: { value: status }, ok: { value: false } });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}
