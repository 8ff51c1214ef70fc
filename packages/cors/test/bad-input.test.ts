import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { CorsErrorCodes, type CorsOptions, cors } from '../src/index.ts';
import { APP, call, corsApp, EVIL, preflight, rawCall, routes, server } from './helpers.ts';

/** The origin settings a malformed origin must get past none of. */
const settings: CorsOptions[] = [
  { origin: true },
  { origin: '*', credentials: true },
  { origin: [APP, /.*/] },
  { origin: /^(?:.*)$/ },
  { origin: () => true },
];

describe('Origin: null (a sandboxed iframe, a file: page, a redirect across origins)', () => {
  it('is never reflected by true, by * with credentials, by a RegExp, or by a function returning true', async () => {
    for (const options of settings) {
      const url = await corsApp(options);
      const r = await call(`${url}/data`, { origin: 'null' });
      expect(r.status).toBe(200);
      expect(r.cors, String(options.origin)).toEqual({});
    }
  });

  it("is allowed when 'null' is listed literally, by the options or by a function", async () => {
    const listed = await corsApp({ origin: [APP, 'null'], credentials: true });
    expect((await call(`${listed}/data`, { origin: 'null' })).cors).toEqual({ 'access-control-allow-origin': 'null', 'access-control-allow-credentials': 'true' });
    const seen: string[] = [];
    const fn = await corsApp({
      origin: (origin) => {
        seen.push(origin);
        return ['null'];
      },
    });
    expect((await call(`${fn}/data`, { origin: 'null' })).cors).toEqual({ 'access-control-allow-origin': 'null' });
    expect(seen).toEqual(['null']);
  });

  it("gets * from a fixed '*' without credentials, like every origin", async () => {
    const url = await corsApp();
    expect((await call(`${url}/data`, { origin: 'null' })).cors).toEqual({ 'access-control-allow-origin': '*' });
  });
});

describe('an Origin that is not an origin', () => {
  const malformed = [
    'javascript:alert(1)',
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'https://user@app.example.com',
    'https://app.example.com:443:1',
    'https://app example.com',
    '<script>alert(1)</script>',
    '*',
  ];

  it('is refused by every setting, is never reflected, never reaches the function, and the answer is normal', async () => {
    for (const options of settings) {
      let calls = 0;
      const fn = options.origin;
      const url = await corsApp(
        typeof fn === 'function'
          ? {
              origin: (o, req) => {
                calls++;
                return fn(o, req);
              },
            }
          : options,
      );
      for (const origin of malformed) {
        const r = await call(`${url}/data`, { origin });
        expect(r.status).toBe(200);
        expect(r.body).toBe('{"ok":true}');
        expect(r.cors, `${String(options.origin)} ${origin}`).toEqual({});
      }
      expect(calls).toBe(0);
    }
  });

  it('with bytes outside ASCII (exact bytes) is refused too', async () => {
    const url = await corsApp({ origin: true });
    const head = Buffer.concat([Buffer.from('GET /data HTTP/1.1\r\nHost: x\r\nOrigin: https://'), Buffer.from([0xc3, 0xa9, 0x80, 0xff]), Buffer.from('.example\r\n')]);
    const r = await rawCall(url, head.toString('latin1'));
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.headers.vary).toBe('Origin');
  });

  it('gets a fixed * and nothing of its own from the default setting', async () => {
    const url = await corsApp();
    const r = await call(`${url}/data`, { origin: 'javascript:alert(1)' });
    expect(r.cors).toEqual({ 'access-control-allow-origin': '*' });
  });
});

describe('a 10 KB Origin', () => {
  const long = `https://${'a'.repeat(10_000)}.example`;

  it('is refused, even by true and by a RegExp it matches, and the answer is normal', async () => {
    for (const options of [{ origin: true }, { origin: /\.example$/ }, { origin: [APP] }, { origin: () => true }] as CorsOptions[]) {
      const url = await corsApp(options);
      const r = await call(`${url}/data`, { origin: long });
      expect(r.status).toBe(200);
      expect(r.cors, String(options.origin)).toEqual({});
      expect(r.vary).toBe('Origin');
    }
  });

  it('gets no preflight answer of its own', async () => {
    const url = await corsApp({ origin: true });
    const r = await preflight(`${url}/data`, long);
    expect(r.status).toBe(404);
    expect(r.cors).toEqual({});
  });
});

describe('two Origin headers (exact bytes)', () => {
  const twoLines = (first: string, second: string, path = '/data') => `GET ${path} HTTP/1.1\r\nHost: x\r\nOrigin: ${first}\r\nOrigin: ${second}`;

  it('are never read as the two joined: a disallowed first line is refused whatever follows', async () => {
    for (const options of [{ origin: [APP] }, { origin: /app\.example\.com/ }, { origin: (o: string) => o === APP }] as CorsOptions[]) {
      const url = await corsApp(options);
      const r = await rawCall(url, twoLines(EVIL, APP));
      expect(r.status).toBe(200);
      expect(r.headers['access-control-allow-origin'], String(options.origin)).toBeUndefined();
    }
  });

  it('are judged by the first line, the one uWS reads (never by "first, second")', async () => {
    const url = await corsApp({ origin: [APP], credentials: true });
    const r = await rawCall(url, twoLines(APP, EVIL));
    expect(r.headers['access-control-allow-origin']).toBe(APP);
  });

  it('are judged by the first line after an async middleware too (core copied the header lines)', async () => {
    const app = server();
    app.use(async (req, res, next) => {
      await new Promise((r) => setTimeout(r, 1));
      next();
    });
    app.use(cors({ origin: [APP] }));
    routes(app);
    const url = await listen(app);
    expect((await rawCall(url, twoLines(APP, EVIL))).headers['access-control-allow-origin']).toBe(APP);
    expect((await rawCall(url, twoLines(EVIL, APP))).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('are judged by the first line once a middleware before built req.headers, where core joins them into one value', async () => {
    const app = server();
    let joined: string | undefined;
    app.use((req, res, next) => {
      joined = req.headers.origin;
      next();
    });
    app.use(cors({ origin: [APP, EVIL, /\.example$/] }));
    routes(app);
    const url = await listen(app);
    const r = await rawCall(url, twoLines(APP, EVIL));
    expect(joined).toBe(`${APP}, ${EVIL}`);
    expect(r.headers['access-control-allow-origin']).toBe(APP);
    expect(r.headers.vary).toBe('Origin');
    // An allowed second line never helps a refused first one.
    const refused = await rawCall(url, twoLines('https://other.invalid', APP));
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('joined into one line by a proxy never match, even when both are allowed', async () => {
    let calls = 0;
    const fnOptions: CorsOptions = {
      origin: () => {
        calls++;
        return true;
      },
    };
    for (const options of [{ origin: [APP] }, { origin: /app\.example\.com$/ }, { origin: true }, { origin: '*', credentials: true }, fnOptions] as CorsOptions[]) {
      const url = await corsApp(options);
      for (const value of [`${APP}, ${APP}`, `${APP},${APP}`, `${EVIL}, ${APP}`]) {
        const r = await call(`${url}/data`, { origin: value });
        expect(r.cors, `${String(options.origin)}: ${value}`).toEqual({});
      }
    }
    expect(calls).toBe(0);
  });
});

describe('a preflight asking for hundreds of headers', () => {
  const short = Array.from({ length: 300 }, (_, i) => `x-h${i}`).join(',');
  const long = Array.from({ length: 300 }, (_, i) => `x-custom-header-number-${i}`).join(',');

  it('has its 300 names reflected when allowedHeaders is not given and the list is under 4,096 characters', async () => {
    expect(short.length).toBeLessThan(4096);
    const url = await corsApp({ origin: APP });
    const r = await preflight(`${url}/data`, APP, 'POST', short);
    expect(r.status).toBe(204);
    expect(r.cors['access-control-allow-headers']).toBe(short);
  });

  it('gets the configured allowedHeaders, never its own list, when they are given', async () => {
    const url = await corsApp({ origin: APP, allowedHeaders: ['content-type'] });
    for (const list of [short, long]) {
      const r = await preflight(`${url}/data`, APP, 'POST', list);
      expect(r.status).toBe(204);
      expect(r.cors['access-control-allow-headers']).toBe('content-type');
      expect(r.vary).toBe('Origin');
    }
  });

  it('is refused with 400 VELOX_ERR_CORS_BAD_PREFLIGHT over 4,096 characters', async () => {
    expect(long.length).toBeGreaterThan(4096);
    const url = await corsApp({ origin: APP });
    const r = await preflight(`${url}/data`, APP, 'POST', long);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ code: CorsErrorCodes.BAD_PREFLIGHT, message: expect.stringContaining('4096') });
    expect(r.cors['access-control-allow-headers']).toBeUndefined();
    expect(r.cors['access-control-allow-methods']).toBeUndefined();
  });

  it('is treated as disallowed over 4,096 characters with strictPreflight: false', async () => {
    const url = await corsApp({ origin: APP, strictPreflight: false });
    const r = await preflight(`${url}/own-options`, APP, 'POST', long);
    expect(r.status).toBe(200);
    expect(r.body).toBe('the app answered');
    expect(r.cors).toEqual({});
  });

  it('is refused when its list is not a list of header names', async () => {
    const url = await corsApp({ origin: APP });
    for (const list of ['x-a;x-b', 'x-a,,x-b', 'x-a x-b', 'x-a,', '(x)']) {
      const r = await preflight(`${url}/data`, APP, 'POST', list);
      expect(r.status, list).toBe(400);
    }
    expect((await preflight(`${url}/data`, APP, 'POST', 'x-a, x-b')).cors['access-control-allow-headers']).toBe('x-a, x-b');
  });
});

describe('an Access-Control-Request-Method that is not a token', () => {
  const bad = ['GET POST', 'GET,POST', '<script>', 'PUT;'];

  it('is answered 400 VELOX_ERR_CORS_BAD_PREFLIGHT, with no Access-Control-Allow-* header', async () => {
    for (const options of [{ origin: APP }, { origin: async () => true }] as CorsOptions[]) {
      const url = await corsApp(options);
      for (const method of bad) {
        const r = await preflight(`${url}/data`, APP, method);
        expect(r.status, method).toBe(400);
        expect(JSON.parse(r.body)).toMatchObject({ statusCode: 400, code: CorsErrorCodes.BAD_PREFLIGHT });
        expect(r.cors).toEqual({});
        expect(r.vary).toBe('Origin');
      }
    }
  });

  it('goes on without CORS headers with strictPreflight: false', async () => {
    const url = await corsApp({ origin: APP, strictPreflight: false });
    const r = await preflight(`${url}/own-options`, APP, 'GET POST');
    expect(r.status).toBe(200);
    expect(r.body).toBe('the app answered');
    expect(r.cors).toEqual({});
  });

  it("is refused by '*' too", async () => {
    const url = await corsApp();
    expect((await preflight(`${url}/data`, APP, 'GET POST')).status).toBe(400);
    expect((await preflight(`${url}/data`, APP, 'PROPFIND')).status).toBe(204);
  });
});

describe('cors() itself', () => {
  it('reads its options once: changing them afterwards changes nothing', async () => {
    const options: { origin: string[]; exposedHeaders: string[] } = { origin: [APP], exposedHeaders: ['x-a'] };
    const app = server();
    app.use(cors(options));
    routes(app);
    options.origin.push(EVIL);
    options.exposedHeaders.push('x-b');
    const url = await listen(app);
    expect((await call(`${url}/data`, { origin: EVIL })).cors).toEqual({});
    expect((await call(`${url}/data`, { origin: APP })).cors['access-control-expose-headers']).toBe('x-a');
  });
});
