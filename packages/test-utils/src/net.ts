/**
 * Raw TCP on 127.0.0.1: free ports, whether a port accepts, exact bytes to a server and what it
 * answers, and a parser for the raw HTTP/1.1 answers.
 */
import { connect, createServer, type Socket } from 'node:net';
import { sleep } from './wait.ts';

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago (for tests that need a fixed
 * port: to restart something on it, to share it, to pass it to a child process).
 * @example
 * ```ts
 * const port = await freePort();
 * const child = run(FIXTURE, { PORT: String(port) });
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Whether a TCP connection to the port is accepted.
 * @example
 * ```ts
 * await until(async () => !(await accepts(port)), 'the port to be free');
 * ```
 */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Options of `raw()`. */
export interface RawOptions {
  /** Resolve once this many ms pass without data (default 300). */
  quietMs?: number;
  /** How long to wait for the first byte after writing (default `quietMs`). */
  firstMs?: number;
  /** A pause between the parts of the payload, in ms (default 0). */
  gapMs?: number;
}

/**
 * Sends raw bytes (a port on 127.0.0.1, or the base URL of a server) and collects the answer
 * until the server closes the connection or `quietMs` pass without data. Resolves with the text
 * (latin1) and whether the server closed (a reset counts as closed).
 * @example
 * ```ts
 * const { text, closed } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
 * const [answer] = parseResponses(text);
 * ```
 */
export function raw(
  target: number | string,
  payload: string | Buffer | Array<string | Buffer>,
  { quietMs = 300, firstMs = quietMs, gapMs = 0 }: RawOptions = {},
): Promise<{ text: string; closed: boolean }> {
  const port = typeof target === 'number' ? target : Number(new URL(target).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), ms);
    };
    socket.on('data', (d) => {
      text += d.toString('latin1');
      arm(quietMs);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    socket.on('connect', async () => {
      const parts = Array.isArray(payload) ? payload : [payload];
      for (const part of parts) {
        socket.write(part);
        if (gapMs) await sleep(gapMs);
      }
      if (text === '') arm(firstMs);
      else arm(quietMs);
    });
  });
}

/** A raw connection: write bytes, read what comes back, see when it closes. */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far (latin1). */
  text(): string;
  /** Resolves when the connection closes (a reset included). */
  closed: Promise<void>;
  /** Resolves once the received text satisfies `check` (polling), or rejects after `timeoutMs` or when the connection closes first. */
  until(check: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** Writes, and resolves once the data is handed to the kernel. */
  write(data: string | Buffer): Promise<void>;
}

/**
 * Opens a raw connection to 127.0.0.1:`port`; resolves once connected.
 * @example
 * ```ts
 * const client = await rawConnection(port);
 * await client.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello');
 * await client.until((text) => text.includes('413'), 'the 413');
 * await client.closed;
 * ```
 */
export function rawConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {}); // a reset shows as 'close'
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        socket,
        text: () => text,
        closed,
        async until(check, what, timeoutMs = 10_000) {
          const start = Date.now();
          while (!check(text)) {
            if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(text.slice(0, 300))}`);
            if (socket.destroyed && !check(text)) throw new Error(`connection closed before ${what}; got ${JSON.stringify(text.slice(0, 300))}`);
            await sleep(10);
          }
          return text;
        },
        write: (data) => new Promise<void>((done, fail) => socket.write(data, (err) => (err ? fail(err) : done()))),
      }),
    );
  });
}

/** One response read from a raw HTTP/1.1 stream. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Splits a raw HTTP/1.1 stream into responses: status line, headers, and the body by
 * Content-Length or chunked. A response whose chunked body has not ended yet ends the list; with
 * `{ partial: true }` it is listed too, with the body so far (for an answer sent while the request
 * is still coming in, which ends only once the request has).
 * @example
 * ```ts
 * const [first, second] = parseResponses((await raw(port, twoPipelinedRequests)).text);
 * expect(first?.status).toBe(200);
 * ```
 */
export function parseResponses(text: string, { partial = false }: { partial?: boolean } = {}): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        if (lineEnd < 0) {
          if (partial) out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
          return out;
        }
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        if (size === 0) {
          rest = rest.slice(lineEnd + 4);
          break;
        }
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
  }
  return out;
}
