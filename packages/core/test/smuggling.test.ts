// Request smuggling: requests whose framing headers a proxy in front could read differently from
// uWS. Each case sends exact bytes over `net`, with a second request (GET /smuggled) behind the
// first where that matters, and checks what comes back: the answer's bytes, or the close, and
// that the smuggled request is never answered (nor even run).
//
// uWS v20.51 reads these cases in two ways:
// - it refuses them itself: its own 400 page (505 for bare LF line ends, which break the request
//   line) with Connection: close, and the connection closed at once, before any route runs
//   (Content-Length with Transfer-Encoding, a space before the colon, bare LF line ends) or after
//   the route ran (a Content-Length that is not plain digits, bad chunk sizes). uWS v20.30 closed
//   these without an answer, or never handed them to JavaScript and closed at its idle timeout;
// - it accepts them and frames the body its own way (two Content-Length values: the first; any
//   Transfer-Encoding: chunked). Velox catches these when the body is read, or when the handler
//   goes async, and answers 400 VELOX_ERR_BAD_FRAMING with Connection: close.
import { parseResponses, raw } from '@velox/test-utils';
import { describe, type ExpectStatic, it } from 'vitest';
import { ErrorCodes, loadUws, Server } from '../src/index.ts';

const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';

interface Probe {
  port: number;
  /** Routes that ran, in order, by `METHOD path`. */
  ran: string[];
  close(): Promise<void>;
}

/**
 * A server of its own per test (the tests run concurrently): routes that read the body at once,
 * after an await, as a stream, after reading `req.headers`, not at all, and the smuggled target.
 */
async function probe(): Promise<Probe> {
  const app = new Server({ logger: false });
  const ran: string[] = [];
  const later = () => new Promise((r) => setTimeout(r, 10));
  app.post('/text', async (req, res) => {
    ran.push('POST /text');
    res.send(`[${await req.text()}]`);
  });
  app.post('/json', async (req, res) => {
    ran.push('POST /json');
    res.json(await req.json());
  });
  app.post('/later', async (req, res) => {
    ran.push('POST /later');
    await later();
    res.send(`[${await req.text()}]`);
  });
  app.post('/headers', async (req, res) => {
    ran.push('POST /headers');
    const length = req.headers['content-length'];
    res.send(`${length} [${await req.text()}]`);
  });
  app.post('/stream', async (req, res) => {
    ran.push('POST /stream');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    res.send(`[${Buffer.concat(chunks).toString()}]`);
  });
  app.post('/ignore', async (req, res) => {
    ran.push('POST /ignore');
    await later();
    res.send('ignored');
  });
  app.get('/smuggled', (req, res) => {
    ran.push('GET /smuggled');
    res.send('smuggled!');
  });
  const { port } = await app.listen(0, '127.0.0.1');
  return { port, ran, close: () => app.close({ timeout: 1000 }) };
}

async function withProbe<T>(fn: (p: Probe) => Promise<T>): Promise<T> {
  const p = await probe();
  try {
    return await fn(p);
  } finally {
    await p.close();
  }
}

/** uWS answered the request itself (its HTML page, not Velox's JSON) and closed the connection. */
function refusedByUws(expect: ExpectStatic, { text, closed }: { text: string; closed: boolean }, status = 400): void {
  const [response, ...more] = parseResponses(text);
  expect(response?.status).toBe(status);
  expect(response?.headers.connection).toBe('close');
  expect(text).toContain('uWebSockets');
  expect(text).not.toContain('smuggled!');
  expect(more).toEqual([]);
  expect(closed).toBe(true);
}

/** The head of a POST with the given header lines (CRLF added). */
const post = (path: string, ...lines: string[]) => `POST ${path} HTTP/1.1\r\nHost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
const chunked = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n0\r\n\r\n`;

describe.concurrent('two Content-Length headers', () => {
  it('answers 400 VELOX_ERR_BAD_FRAMING with Connection: close when they differ (5, then 10)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: 5', 'Content-Length: 10')}hello12345`, { quietMs: 5000 });
      const [response, ...more] = parseResponses(text);
      expect(response?.status).toBe(400);
      expect(response?.headers.connection).toBe('close');
      expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
      expect(more).toEqual([]);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  it('never answers a request smuggled behind the first value (5 then 10, then GET)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: 5', 'Content-Length: 10')}hello${SMUGGLED}`, { quietMs: 5000 });
      // A response still pending when uWS reaches the next request makes uWS close the
      // connection: neither is answered, and the smuggled route never runs.
      expect(text).not.toContain('smuggled!');
      expect(text).not.toContain('200 OK');
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  it('never answers a request smuggled behind the larger value first (10, then 5): uWS reads the rest as a request line and answers 505', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const result = await raw(port, `${post('/json', 'Content-Type: application/json', 'Content-Length: 10', 'Content-Length: 5')}"hel"${SMUGGLED}`, {
        quietMs: 5000,
      });
      // uWS frames the body by the first value (10 bytes: '"hel"GET /'); what follows is not a
      // request line it accepts, and it answers that at once, before Velox's 400 can go out.
      refusedByUws(expect, result, 505);
      expect(ran).toEqual(['POST /json']);
    });
  });

  it('catches them on a route that reads the body after an await', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/later', 'Content-Length: 5', 'Content-Length: 10')}hello12345`, { quietMs: 5000 });
      expect(parseResponses(text).map((r) => [r.status, r.headers.connection])).toEqual([[400, 'close']]);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /later']);
    });
  });

  it('catches them after req.headers joined the two lines into one value', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/headers', 'Content-Length: 5', 'Content-Length: 10')}hello${SMUGGLED}`, { quietMs: 5000 });
      expect(text).not.toContain('smuggled!');
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /headers']);
    });
  });

  it('fails a body stream with VELOX_ERR_BAD_FRAMING', async ({ expect }) => {
    await withProbe(async ({ port }) => {
      const { text, closed } = await raw(port, `${post('/stream', 'Content-Length: 5', 'Content-Length: 10')}hello12345`, { quietMs: 5000 });
      const [response] = parseResponses(text);
      expect(response?.status).toBe(400);
      expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
      expect(closed).toBe(true);
    });
  });

  it('closes the connection after the answer of a route that goes async without reading the body', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/ignore', 'Content-Length: 5', 'Content-Length: 10')}hello12345`, { quietMs: 5000 });
      expect(parseResponses(text).map((r) => [r.status, r.headers.connection, r.body])).toEqual([[200, 'close', 'ignored']]);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /ignore']);
    });
  });

  it('treats two lines with the same value as one (RFC 9110 8.6), and serves the next request', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: 5', 'Content-Length: 5')}hello${SMUGGLED}`);
      expect(parseResponses(text).map((r) => r.body)).toEqual(['[hello]', 'smuggled!']);
      expect(closed).toBe(false);
      expect(ran).toEqual(['POST /text', 'GET /smuggled']);
    });
  });

  it('is answered 400 by uWS, which closes at once, as one line "5, 5" (the route has run)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Content-Length: 5, 5')}hello${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual(['POST /text']);
    });
  });
});

describe.concurrent('Content-Length values uWS refuses', () => {
  it('answers a negative length with uWS\'s 400 and closes at once (the route has run)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Content-Length: -5')}hello${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual(['POST /text']);
    });
  });

  it('answers "Content-Length : 5" (a space before the colon) with uWS\'s 400 and closes at once, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Content-Length : 5')}hello${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual([]);
    });
  });
});

describe.concurrent('Transfer-Encoding', () => {
  it('is answered 400 by uWS, which closes at once, before any route runs, with Content-Length before Transfer-Encoding', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Content-Length: 5', 'Transfer-Encoding: chunked')}0\r\n\r\n${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual([]);
    });
  });

  it('is answered 400 by uWS, which closes at once, before any route runs, with Transfer-Encoding before Content-Length', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Transfer-Encoding: chunked', 'Content-Length: 30')}${chunked('hello')}${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual([]);
    });
  });

  for (const value of ['xchunked', 'chunked, identity', 'identity, chunked', 'chunked;q=1', '']) {
    it(`answers 400 and closes on "Transfer-Encoding: ${value}" (uWS would read it as chunked)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', `Transfer-Encoding: ${value}`)}${chunked('hello')}`, { quietMs: 5000 });
        const [response, ...more] = parseResponses(text);
        expect(response?.status).toBe(400);
        expect(response?.headers.connection).toBe('close');
        expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
        expect(more).toEqual([]);
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });

    it(`never answers a request smuggled behind "Transfer-Encoding: ${value}"`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', `Transfer-Encoding: ${value}`)}${chunked('hello')}${SMUGGLED}`, { quietMs: 5000 });
        expect(text).not.toContain('smuggled!');
        expect(text).not.toContain('200 OK');
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });
  }

  it('answers 400 and closes on Transfer-Encoding sent on two lines (chunked twice)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked')}${chunked('hello')}${SMUGGLED}`, {
        quietMs: 5000,
      });
      expect(text).not.toContain('smuggled!');
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  for (const [name, line] of [
    ['upper case', 'Transfer-Encoding: CHUNKED'],
    ['a tab before the value', 'Transfer-Encoding:\tchunked'],
    ['spaces around the value', 'Transfer-Encoding:   chunked  '],
  ] as const) {
    it(`reads "chunked" with ${name} as chunked (the spaces and tabs around a value are not part of it)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', line)}${chunked('hello')}${SMUGGLED}`);
        expect(parseResponses(text).map((r) => r.body)).toEqual(['[hello]', 'smuggled!']);
        expect(closed).toBe(false);
        expect(ran).toEqual(['POST /text', 'GET /smuggled']);
      });
    });
  }

  it('answers "Transfer-Encoding : chunked" (a space before the colon) with uWS\'s 400 and closes at once, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `${post('/text', 'Transfer-Encoding : chunked')}${chunked('hello')}${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual([]);
    });
  });
});

describe.concurrent('chunk sizes uWS refuses', () => {
  for (const [name, size] of [
    ['an oversized chunk size (18 hex digits)', 'FFFFFFFFFFFFFFFFFF'],
    ['a negative chunk size', '-5'],
    ['a chunk extension', '5;x=y'],
  ] as const) {
    it(`answers ${name} with uWS's 400 and closes at once (the route has run)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        refusedByUws(expect, await raw(port, `${post('/text', 'Transfer-Encoding: chunked')}${size}\r\nhello\r\n0\r\n\r\n${SMUGGLED}`, { quietMs: 5000 }));
        expect(ran).toEqual(['POST /text']);
      });
    });
  }

  it('takes a 4 GiB chunk size (FFFFFFFF) as the start of a 4 GiB chunk and waits for its bytes (uWS v20.30 closed the connection)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding: chunked')}FFFFFFFF\r\nhello\r\n0\r\n\r\n${SMUGGLED}`, { quietMs: 1000 });
      // The bytes after the size are the chunk's data: nothing is smuggled, nothing is answered yet.
      expect(text).toBe('');
      expect(closed).toBe(false);
      expect(ran).toEqual(['POST /text']);
    });
  });
});

describe.concurrent('bare LF line ends', () => {
  it('answers a request with bare LF line ends with uWS\'s 505 (the request line has no CRLF) and closes at once, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `POST /text HTTP/1.1\nHost: x\nContent-Length: 5\n\nhello${SMUGGLED}`, { quietMs: 5000 }), 505);
      expect(ran).toEqual([]);
    });
  });

  it('answers a request with one bare LF among CRLFs with uWS\'s 400 and closes at once, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      refusedByUws(expect, await raw(port, `POST /text HTTP/1.1\r\nHost: x\nContent-Length: 5\r\n\r\nhello${SMUGGLED}`, { quietMs: 5000 }));
      expect(ran).toEqual([]);
    });
  });
});

describe('why a bad framing fails from a later turn of the event loop', () => {
  it('uWS v20.51 forgets Connection: close on a response ended inside its callback when a request follows in the same read', async ({ expect }) => {
    const uws = loadUws();
    const app = uws
      .App()
      .post('/*', (res) => {
        res.onAborted(() => {});
        res.writeStatus('400 Bad Request').writeHeader('Connection', 'close').end('bad');
      })
      .get('/smuggled', (res) => void res.end('smuggled!'));
    const { port, token } = await new Promise<{ port: number; token: unknown }>((resolve) =>
      app.listen('127.0.0.1', 0, (t) => resolve({ port: uws.us_socket_local_port(t), token: t })),
    );
    try {
      const { text, closed } = await raw(port, `${post('/x', 'Content-Length: 5')}hello${SMUGGLED}`);
      // The close is dropped and the request behind is answered: Velox must not end such a
      // response inside uWS's callback (src/request.ts, #noBody).
      expect(parseResponses(text).map((r) => [r.status, r.body])).toEqual([
        [400, 'bad'],
        [200, 'smuggled!'],
      ]);
      expect(closed).toBe(false);
    } finally {
      uws.us_listen_socket_close(token as never);
      app.close();
    }
  });
});
