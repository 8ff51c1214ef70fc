// Request smuggling: requests whose framing headers a proxy in front could read differently from
// uWS. Each case sends exact bytes over `net`, with a second request (GET /smuggled) behind the
// first where that matters, and checks what comes back: the answer's bytes, or the close, and
// that the smuggled request is never answered (nor even run). Each test has a server of its own,
// which must still answer another client afterwards.
//
// uWS v20.51 reads these cases in three ways:
// - it refuses them itself with 400 (505 for a request line it cannot parse) and Connection:
//   close, then closes at once, before the route runs (a bad header line, bare LF line ends,
//   Content-Length with Transfer-Encoding) or after (a Content-Length that is not plain digits,
//   bad chunk sizes);
// - it accepts them and frames the body its own way (two Content-Length values: the first; an
//   empty Content-Length: none; any Transfer-Encoding: chunked). Velox catches these when the body
//   is read, or when the handler goes async, and answers 400 VELOX_ERR_BAD_FRAMING with
//   Connection: close;
// - it reads a chunk size loosely (a 4 GiB chunk, or hex-like characters after the digits): what
//   follows is body, never a request, and the connection ends at uWS's idle timeout. Those tests
//   wait for that timeout, so they run concurrently.
import { parseResponses, raw } from '@velox/test-utils';
import { describe, it } from 'vitest';
import { ErrorCodes, Server } from '../../src/index.ts';
import { UWS_400, UWS_505 } from '../uws-answers.ts';

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
  app.get('/alive', (req, res) => res.send('alive'));
  const { port } = await app.listen(0, '127.0.0.1');
  return { port, ran, close: () => app.close({ timeout: 1000 }) };
}

/** Runs `fn` against a fresh probe, then checks that the server still answers a new client. */
async function withProbe<T>(fn: (p: Probe) => Promise<T>): Promise<T> {
  const p = await probe();
  try {
    const result = await fn(p);
    const alive = await fetch(`http://127.0.0.1:${p.port}/alive`);
    if ((await alive.text()) !== 'alive') throw new Error(`the server stopped serving: ${alive.status}`);
    return result;
  } finally {
    await p.close();
  }
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

  it('answers 400 VELOX_ERR_BAD_FRAMING and closes when the larger value comes first (10, then 5)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/json', 'Content-Type: application/json', 'Content-Length: 10', 'Content-Length: 5')}"hel"`, {
        quietMs: 5000,
      });
      const [response, ...more] = parseResponses(text);
      expect(response?.status).toBe(400);
      expect(response?.headers.connection).toBe('close');
      expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
      expect(more).toEqual([]);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /json']);
    });
  });

  it('never answers a request smuggled behind the smaller value (10, then 5): uWS reads into it and answers the rest 505', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/json', 'Content-Type: application/json', 'Content-Length: 10', 'Content-Length: 5')}"hel"${SMUGGLED}`, {
        quietMs: 5000,
      });
      // uWS takes `"hel"GET /` as the body and `smuggled HTTP/1.1` as a request line it cannot
      // parse: its 505 goes out, and the connection closes, before Velox's 400.
      expect(text).toBe(UWS_505);
      expect(closed).toBe(true);
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
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: 5, 5')}hello${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });
});

describe.concurrent('an empty Content-Length (uWS v20.51 reads it as no body)', () => {
  it('answers 400 VELOX_ERR_BAD_FRAMING with Connection: close', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: ')}hello`, { quietMs: 5000 });
      const [response, ...more] = parseResponses(text);
      expect(response?.status).toBe(400);
      expect(response?.headers.connection).toBe('close');
      expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
      expect(more).toEqual([]);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  it('never answers a request sent as its body', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length:')}${SMUGGLED}`, { quietMs: 5000 });
      // uWS parses the body as the next request while the first is pending, and closes instead.
      expect(text).toBe('');
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  for (const route of ['/text', '/headers', '/later', '/ignore']) {
    it(`never answers a request sent as the body of an empty line followed by the right length (${route})`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        // A proxy that took the second line would send one request; uWS takes the first and sees two.
        const { text, closed } = await raw(port, `${post(route, 'Content-Length:', `Content-Length: ${SMUGGLED.length}`)}${SMUGGLED}`, { quietMs: 5000 });
        expect(text).not.toContain('smuggled!');
        expect(text).not.toContain('200 OK');
        expect(closed).toBe(true);
        expect(ran).toEqual([`POST ${route}`]);
      });
    });
  }
});

describe.concurrent('Content-Length values uWS refuses', () => {
  it('answers 400 and closes at once on a negative length (the route has run)', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: -5')}hello${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual(['POST /text']);
    });
  });

  it('answers 400 and closes at once on "Content-Length : 5" (a space before the colon), before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length : 5')}hello${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });
});

describe.concurrent('Content-Length values uWS reads and Velox refuses', () => {
  for (const length of ['0000000000000005', '100000000000000000']) {
    it(`answers 400 VELOX_ERR_BAD_FRAMING and closes on ${length.length} digits (no body is that long)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', `Content-Length: ${length}`)}hello`, { quietMs: 5000 });
        const [response, ...more] = parseResponses(text);
        expect(response?.status).toBe(400);
        expect(response?.headers.connection).toBe('close');
        expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
        expect(more).toEqual([]);
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });
  }
});

describe.concurrent('Transfer-Encoding', () => {
  it('is answered 400 by uWS, which closes at once, before any route runs, with Content-Length before Transfer-Encoding', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Content-Length: 5', 'Transfer-Encoding: chunked')}0\r\n\r\n${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });

  it('is answered 400 by uWS, which closes at once, before any route runs, with Transfer-Encoding before Content-Length', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding: chunked', 'Content-Length: 30')}${chunked('hello')}${SMUGGLED}`, {
        quietMs: 5000,
      });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });

  for (const [name, lines] of [
    ['an empty Transfer-Encoding with a Content-Length', ['Transfer-Encoding:', 'Content-Length: 5']],
    ['Transfer-Encoding: chunked with an empty Content-Length', ['Transfer-Encoding: chunked', 'Content-Length:']],
  ] as const) {
    it(`answers 400 VELOX_ERR_BAD_FRAMING and closes on ${name} (uWS counts only the non-empty one)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const body = lines[0] === 'Transfer-Encoding:' ? 'hello' : chunked('hello');
        const { text, closed } = await raw(port, `${post('/text', ...lines)}${body}`, { quietMs: 5000 });
        const [response, ...more] = parseResponses(text);
        expect(response?.status).toBe(400);
        expect(response?.headers.connection).toBe('close');
        expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
        expect(more).toEqual([]);
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });
  }

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

  it('answers 400 and closes at once on "Transfer-Encoding : chunked" (a space before the colon), before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding : chunked')}${chunked('hello')}${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });
});

describe.concurrent('chunk sizes uWS refuses', () => {
  for (const [name, size] of [
    ['an oversized chunk size (18 hex digits)', 'FFFFFFFFFFFFFFFFFF'],
    ['a negative chunk size', '-5'],
    ['a chunk extension with a letter past f', '5;x=y'],
  ] as const) {
    it(`answers 400 and closes at once on ${name} (the route has run)`, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding: chunked')}${size}\r\nhello\r\n0\r\n\r\n${SMUGGLED}`, { quietMs: 5000 });
        expect(text).toBe(UWS_400);
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });
  }
});

describe.concurrent('chunk sizes larger than what follows (all of it is body, until uWS\'s idle timeout)', () => {
  for (const [name, size] of [
    // uWS v20.51 takes chunk sizes of up to 15 hex digits (v20.30 refused 4 GiB and more).
    ['a 4 GiB chunk size', 'FFFFFFFF'],
    // uWS reads ; : < = > ? @ as hex digits 10 to 16: this extension makes the size 0x5BADB.
    ['a chunk extension of hex-like characters (5;a=b)', '5;a=b'],
  ] as const) {
    it(`never answers, nor runs, the request behind ${name}`, { timeout: 40_000 }, async ({ expect }) => {
      await withProbe(async ({ port, ran }) => {
        const { text, closed } = await raw(port, `${post('/text', 'Transfer-Encoding: chunked')}${size}\r\nhello\r\n0\r\n\r\n${SMUGGLED}`, { quietMs: 30_000 });
        expect(text).toBe('');
        expect(closed).toBe(true);
        expect(ran).toEqual(['POST /text']);
      });
    });
  }
});

describe.concurrent('bare LF line ends', () => {
  it('answers 505 and closes at once on bare LF line ends, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `POST /text HTTP/1.1\nHost: x\nContent-Length: 5\n\nhello${SMUGGLED}`, { quietMs: 5000 });
      // uWS reads `HTTP/1.1\n` as a version it does not speak.
      expect(text).toBe(UWS_505);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });

  it('answers 400 and closes at once on one bare LF among CRLFs, before any route runs', async ({ expect }) => {
    await withProbe(async ({ port, ran }) => {
      const { text, closed } = await raw(port, `POST /text HTTP/1.1\r\nHost: x\nContent-Length: 5\r\n\r\nhello${SMUGGLED}`, { quietMs: 5000 });
      expect(text).toBe(UWS_400);
      expect(closed).toBe(true);
      expect(ran).toEqual([]);
    });
  });
});
