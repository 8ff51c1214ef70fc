import * as net from 'node:net';
import { Readable } from 'node:stream';
import { parseResponses, rawConnection, sleep, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { PreparedHead } from '../../src/index.ts';
import { server } from '../helpers.ts';

/**
 * Writes raw requests on one connection and resolves with the text once `count` whole answers
 * came back. Waiting for the answers, not for a quiet spell: the client shares the event loop
 * with the server, and on a busy machine a stall outlasts any fixed quiet time.
 */
async function answers(port: number, requests: string, count = 1): Promise<string> {
  const client = await rawConnection(port);
  const whole = (text: string) =>
    parseResponses(text).filter((a) => a.headers['content-length'] === undefined || a.body.length === Number(a.headers['content-length']));
  try {
    await client.write(requests);
    await client.until((text) => whole(text).length >= count, `${count} whole answer(s)`);
    return client.text();
  } finally {
    client.socket.destroy();
  }
}

describe('Response', () => {
  it('sets status and headers, reads and removes them', async () => {
    const app = server();
    app.get('/', (req, res) => {
      res.status(201).set('x-a', '1').header('x-b', '2').set({ 'x-c': '3', 'x-multi': ['m1', 'm2'] });
      res.append('x-a', 'more');
      res.set('x-gone', 'soon').remove('x-gone');
      res.send(JSON.stringify({ a: res.get('X-A'), has: res.hasHeader('x-c') }));
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(r.status).toBe(201);
    expect(r.headers.get('x-a')).toBe('1, more');
    expect(r.headers.get('x-b')).toBe('2');
    expect(r.headers.get('x-multi')).toBe('m1, m2');
    expect(r.headers.get('x-gone')).toBeNull();
    expect(await r.json()).toEqual({ a: ['1', 'more'], has: true });
  });

  it('writes each response its own head when a route changes status and headers between responses', async () => {
    const app = server();
    app.get('/h', (req, res) => {
      const v = req.query.v as string;
      if (v === 'a') res.set('x-a', '1');
      if (v === 'b') res.set('x-a', '2');
      if (v === 'c') res.status(201).set('x-a', '1');
      if (v === 'd') res.set('x-a', ['1', '2']);
      if (v === 'e') res.set('x-a', '1').remove('x-a').type('json');
      if (v === 'f') res.set('content-length', '1').set('x-a', '1');
      // No content type: the headers are the start of the previous response's.
      if (v === 'g') return void res.set('x-a', '1').end('x');
      res.send('x');
    });
    const { port } = await start(app);
    const order = ['a', 'a', 'b', 'c', 'c', 'a', 'd', 'd', 'e', 'e', 'f', 'a', 'g', 'g', 'a'];
    const text = await answers(port, order.map((v) => `GET /h?v=${v} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''), order.length);
    // Every head, in order, without the Date line (it changes every second).
    const heads = text
      .split('HTTP/1.1 ')
      .slice(1)
      .map((part) => part.slice(0, part.indexOf('\r\n\r\n')).split('\r\n').filter((line) => !line.startsWith('Date: ')));
    const tail = ['uWebSockets: 20', 'Content-Length: 1'];
    const text200 = 'content-type: text/plain; charset=utf-8';
    const expected: Record<string, string[]> = {
      a: ['200 OK', 'x-a: 1', text200, ...tail],
      b: ['200 OK', 'x-a: 2', text200, ...tail],
      c: ['201 Created', 'x-a: 1', text200, ...tail],
      d: ['200 OK', 'x-a: 1', 'x-a: 2', text200, ...tail],
      e: ['200 OK', 'content-type: application/json; charset=utf-8', ...tail],
      f: ['200 OK', 'x-a: 1', text200, ...tail],
      g: ['200 OK', 'x-a: 1', ...tail],
    };
    expect(heads).toEqual(order.map((v) => expected[v]));
  });

  it('sends the reason phrase statusMessage holds, and the standard one again after it', async () => {
    const app = server();
    app.get('/r', (req, res) => {
      const v = req.query.v as string;
      if (v === 'own') res.statusMessage = 'Fine Thanks';
      if (v === 'empty') res.statusMessage = '';
      if (v === 'bad') {
        try {
          res.statusMessage = 'a\r\nx-injected: 1';
        } catch (err) {
          return void res.status(400).send((err as { code: string }).code);
        }
      }
      res.send(res.statusMessage);
    });
    const { port } = await start(app);
    const order = ['std', 'own', 'std', 'own', 'empty', 'bad', 'std'];
    const text = await answers(port, order.map((v) => `GET /r?v=${v} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''), order.length);
    // Each status line (an answer's line follows the previous body, which has no line end).
    const lines = text.match(/HTTP\/1\.1 [^\r]*/g);
    expect(lines).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 Fine Thanks', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 Fine Thanks', 'HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request', 'HTTP/1.1 200 OK']);
    expect(text).toContain('VELOX_ERR_INVALID_HEADER');
    expect(text).not.toContain('x-injected');
    const bodies = parseResponses(text).map((a) => a.body);
    expect(bodies).toEqual(['OK', 'Fine Thanks', 'OK', 'Fine Thanks', 'OK', 'VELOX_ERR_INVALID_HEADER', 'OK']);
  });

  it('sends strings, buffers, typed arrays and objects with fitting types', async () => {
    const app = server();
    app.get('/string', (req, res) => res.send('Hi'));
    app.get('/buffer', (req, res) => res.send(Buffer.from([1, 2, 3])));
    app.get('/u8', (req, res) => res.send(new Uint8Array([4, 5])));
    app.get('/object', (req, res) => res.send({ ok: true }));
    app.get('/typed', (req, res) => res.type('html').send('<b>x</b>'));
    app.get('/html', (req, res) => res.html('<i>y</i>'));
    app.get('/json', (req, res) => res.json([1, 'two']));
    const { url } = await start(app);
    const get = async (p: string) => {
      const r = await fetch(`${url}${p}`);
      return { type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
    };
    expect(await get('/string')).toEqual({ type: 'text/plain; charset=utf-8', body: Buffer.from('Hi') });
    expect(await get('/buffer')).toEqual({ type: 'application/octet-stream', body: Buffer.from([1, 2, 3]) });
    expect(await get('/u8')).toEqual({ type: 'application/octet-stream', body: Buffer.from([4, 5]) });
    expect(await get('/object')).toEqual({ type: 'application/json; charset=utf-8', body: Buffer.from('{"ok":true}') });
    expect((await get('/typed')).type).toBe('text/html; charset=utf-8');
    expect(await get('/html')).toEqual({ type: 'text/html; charset=utf-8', body: Buffer.from('<i>y</i>') });
    expect((await get('/json')).body.toString()).toBe('[1,"two"]');
  });

  it('redirects and sends bare statuses', async () => {
    const app = server();
    app.get('/old', (req, res) => res.redirect('/new place'));
    app.get('/moved', (req, res) => res.redirect(301, 'https://example.com/'));
    app.get('/gone', (req, res) => res.sendStatus(410));
    app.get('/empty', (req, res) => res.sendStatus(204));
    const { url, port } = await start(app);
    const r = await fetch(`${url}/old`, { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/new%20place');
    expect((await fetch(`${url}/moved`, { redirect: 'manual' })).status).toBe(301);
    const gone = await fetch(`${url}/gone`);
    expect([gone.status, await gone.text()]).toEqual([410, 'Gone']);
    const text = await answers(port, 'GET /empty HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(text.toLowerCase()).not.toContain('content-length');
  });

  it('writes every header on its own line, before and after the handler went async', async () => {
    const app = server();
    const respond = (res: any) =>
      res
        .status(201)
        .set('x-a', '1')
        .set('x-list', ['one', 'two'])
        .cookie('c1', 'v1')
        .cookie('c2', 'v2')
        .type('html')
        .send('<p>ok</p>');
    app.get('/sync', (_req, res) => respond(res));
    app.post('/async', async (req, res) => {
      await req.text();
      respond(res);
    });
    app.get('/later', async (_req, res) => {
      await sleep(5);
      respond(res);
    });
    const { port } = await start(app);
    for (const request of [
      'GET /sync HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /async HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi',
      'GET /later HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      const text = await answers(port, request);
      const head = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
      expect(head[0]).toBe('HTTP/1.1 201 Created');
      for (const line of ['x-a: 1', 'x-list: one', 'x-list: two', 'set-cookie: c1=v1; Path=/', 'set-cookie: c2=v2; Path=/', 'content-type: text/html; charset=utf-8']) {
        expect(head.filter((l) => l === line)).toHaveLength(1);
      }
      expect(text.endsWith('\r\n\r\n<p>ok</p>')).toBe(true);
    }
  });

  it('sets plain and signed cookies, and clears them', async () => {
    const app = server({ cookieSecret: 'shh' });
    app.get('/set', (req, res) =>
      res
        .cookie('plain', 'v 1', { httpOnly: true, sameSite: 'lax' })
        .cookie('sid', 'abc', { signed: true, maxAge: 60_000 })
        .send('ok'),
    );
    app.get('/read', (req, res) => res.json({ sid: req.signedCookies.sid, plain: req.cookies.plain }));
    app.get('/clear', (req, res) => res.clearCookie('sid').send('ok'));
    const { url } = await start(app);
    const set = (await fetch(`${url}/set`)).headers.getSetCookie();
    expect(set[0]).toBe('plain=v%201; Path=/; HttpOnly; SameSite=Lax');
    expect(set[1]).toMatch(/^sid=s%3Aabc\.[^;]+; Max-Age=60; Path=\/; Expires=/);
    const cookie = set.map((c) => c.split(';')[0]).join('; ');
    expect(await (await fetch(`${url}/read`, { headers: { cookie } })).json()).toEqual({ sid: 'abc', plain: 'v 1' });
    expect((await fetch(`${url}/clear`)).headers.get('set-cookie')).toMatch(/^sid=; Path=\/; Expires=Thu, 01 Jan 1970/);
  });

  it('writes a chunked body with write() and end(), in order', async () => {
    const app = server();
    app.get('/chunks', async (req, res) => {
      res.type('text');
      res.write('a');
      await sleep(5);
      res.write(Buffer.from('b'));
      res.end('c');
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/chunks`);
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    expect(await r.text()).toBe('abc');
  });

  // 8 MB through an event loop the client shares: under a second here, but over the default 15 s
  // on a machine busy with other test runs. A stall in the backpressure path still fails (60 s).
  it('streams a Readable of known size with Content-Length and backpressure', async () => {
    const app = server();
    const size = 8 * 1024 * 1024;
    app.get('/big', async (req, res) => {
      let sent = 0;
      const source = new Readable({
        read() {
          const n = Math.min(64 * 1024, size - sent);
          sent += n;
          this.push(n > 0 ? Buffer.alloc(n, 97) : null);
        },
      });
      await res.type('bin').stream(source, { size });
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/big`);
    expect(r.headers.get('content-length')).toBe(String(size));
    const body = Buffer.from(await r.arrayBuffer());
    expect(body.length).toBe(size);
    expect(body.every((b) => b === 97)).toBe(true);
  }, 60_000);

  it('streams a Readable of unknown size, and accepts readable.pipe(res)', async () => {
    const app = server();
    app.get('/stream', async (req, res) => {
      await res.stream(Readable.from(['x', 'y', 'z'].map((s) => Buffer.from(s.repeat(100_000)))));
    });
    app.get('/pipe', (req, res) => {
      Readable.from([Buffer.from('p1'), Buffer.from('p2')]).pipe(res as unknown as NodeJS.WritableStream);
    });
    const { url } = await start(app);
    const text = await (await fetch(`${url}/stream`)).text();
    expect(text).toBe('x'.repeat(100_000) + 'y'.repeat(100_000) + 'z'.repeat(100_000));
    expect(await (await fetch(`${url}/pipe`)).text()).toBe('p1p2');
  });

  it('answers 500 when a stream fails before anything was sent', async () => {
    const app = server();
    app.get('/fail', async (req, res) => {
      const source = new Readable({
        read() {
          this.destroy(new Error('disk gone'));
        },
      });
      await res.stream(source);
    });
    const { url } = await start(app);
    expect((await fetch(`${url}/fail`)).status).toBe(500);
  });

  it('sends Server-Sent Events', async () => {
    const app = server();
    app.get('/events', async (req, res) => {
      const events = res.sse();
      events.send('hello');
      events.send({ n: 1 }, { event: 'tick', id: '7' });
      events.comment('keep-alive');
      events.send('two\nlines');
      await sleep(5);
      events.close();
      expect(events.closed).toBe(true);
      expect(events.send('late')).toBe(false);
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/events`);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(await r.text()).toBe(':\n\ndata: hello\n\nevent: tick\nid: 7\ndata: {"n":1}\n\n: keep-alive\n\ndata: two\ndata: lines\n\n');
  });

  it('corks writes made in atomic() into one packet', async () => {
    const app = server();
    app.get('/atomic', async (req, res) => {
      await sleep(5);
      res.atomic(() => {
        res.status(202).set('x-a', '1');
        res.write('one,');
        res.write('two,');
        res.end('three');
      });
    });
    const { port } = await start(app);
    const packets: string[] = [];
    const { text } = await new Promise<{ text: string }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /atomic HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (d) => {
        packets.push(d.toString());
        if (d.toString().includes('0\r\n\r\n')) {
          socket.destroy();
          resolve({ text: packets.join('') });
        }
      });
    });
    expect(text).toMatch(/^HTTP\/1\.1 202 Accepted/);
    expect(packets.length).toBe(1);
  });

  it("keeps json()'s content type per response: a hook that replaces or removes it changes that response only", async () => {
    // json() starts every response with one shared header list (copied before any change): a
    // change made in place would reach every later json() answer of the process.
    const app = server();
    app.addHook('onSend', (req, res) => {
      if (req.query.hook === 'replace') res.set('content-type', 'application/vnd.test+json');
      if (req.query.hook === 'remove') res.remove('content-type');
      if (req.query.hook === 'add') res.set('x-extra', '1');
    });
    app.get('/j', (req, res) => res.json({ hook: req.query.hook ?? null }));
    const { url } = await start(app);
    const plain = async () => {
      const answer = await fetch(`${url}/j`);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.headers.get('x-extra')).toBeNull();
      expect(await answer.json()).toEqual({ hook: null });
    };
    await plain();
    const replaced = await fetch(`${url}/j?hook=replace`);
    expect(replaced.headers.get('content-type')).toBe('application/vnd.test+json');
    await replaced.text();
    await plain();
    const removed = await fetch(`${url}/j?hook=remove`);
    expect(removed.headers.get('content-type')).toBeNull();
    await removed.text();
    await plain();
    const added = await fetch(`${url}/j?hook=add`);
    expect(added.headers.get('x-extra')).toBe('1');
    expect(added.headers.get('content-type')).toBe('application/json; charset=utf-8');
    await added.text();
    await plain();
  });

  it('takes Node-style end(callback), and runs onSend once for a HEAD answered with writes', async () => {
    const app = server();
    let ended = 0;
    let hooked = 0;
    app.addHook('onSend', () => {
      hooked++;
    });
    app.get('/cb', (req, res) => {
      res.end(() => ended++);
    });
    app.get('/chunks', (req, res) => {
      res.write('a');
      res.write('b');
      res.end('c');
    });
    const { url } = await start(app);
    await (await fetch(`${url}/cb`)).text();
    await sleep(5);
    expect(ended).toBe(1);
    hooked = 0;
    const head = await fetch(`${url}/chunks`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(hooked).toBe(1);
  });

  it('tracks headersSent, finished and locals', async () => {
    const app = server();
    const seen: unknown[] = [];
    app.use((req, res, next) => {
      res.locals.user = 'ann';
      next();
    });
    app.get('/', (req, res) => {
      seen.push(res.headersSent, res.finished);
      res.write('x');
      seen.push(res.headersSent, res.finished);
      res.end(String(res.locals.user));
      seen.push(res.finished);
      expect(() => res.send('again')).toThrow(/already sent/);
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('xann');
    expect(seen).toEqual([false, false, true, false, true]);
  });

  it('is no thenable: an async handler returning res, or awaiting it, gets the response itself', async () => {
    const app = server();
    const resolved: unknown[] = [];
    app.get('/', async (req, res) => {
      const same = await res;
      // An own field (found without searching the prototypes), never on a prototype.
      resolved.push(same === res, res.then, Object.hasOwn(res, 'then'), 'then' in Object.getPrototypeOf(res));
      return res.status(201).json({ ok: true });
    });
    app.get('/chained', (req, res) => {
      // What dispatch does with an async handler's promise: a promise resolved with res settles with res.
      Promise.resolve(res).then((value) => {
        resolved.push(value === res);
        value.send('chained');
      });
    });
    const { url } = await start(app);
    const answer = await fetch(url);
    expect([answer.status, await answer.json()]).toEqual([201, { ok: true }]);
    expect(await (await fetch(`${url}/chained`)).text()).toBe('chained');
    expect(resolved).toEqual([true, undefined, true, false, true]);
  });

  it('drops writes quietly once the client is gone, and reports aborted', async () => {
    const app = server();
    let state: { aborted: boolean; reqAborted: boolean; wrote: boolean } | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    app.get('/wait', async (req, res) => {
      started();
      // Until uWS reports the client gone (a fixed sleep raced the client's close on a busy machine).
      await until(() => res.aborted, 'the server to see the client leave');
      state = { aborted: res.aborted, reqAborted: req.aborted, wrote: res.write('late') };
      res.end('x');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write('GET /wait HTTP/1.1\r\nHost: x\r\n\r\n');
    await running;
    client.socket.destroy();
    await until(() => state !== undefined, 'the handler to go on');
    expect(state).toEqual({ aborted: true, reqAborted: true, wrote: false });
  });
});

describe('Response: the Date header', () => {
  const OLD = 'Thu, 01 Jan 1970 00:00:00 GMT';

  /** The Date lines of every head in a raw stream of answers, one list per answer. */
  function dateLines(text: string): string[][] {
    return [...text.matchAll(/HTTP\/1\.1 \d{3}[^\r]*\r\n([\s\S]*?)\r\n\r\n/g)].map((m) =>
      m[1]!.split('\r\n').filter((line) => /^date:/i.test(line)),
    );
  }

  /** True for uWS's own Date: an IMF-fixdate within a minute of now. */
  function current(line: string): boolean {
    const value = line.slice(line.indexOf(':') + 1).trim();
    return /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value) && Math.abs(Date.parse(value) - Date.now()) < 60_000;
  }

  it('writes one Date line, uWS\'s, when the app set one, on every road a head takes', async () => {
    const app = server();
    const seen: string[] = [];
    const fixed = { 'x-a': '1', 'x-b': '2', 'x-c': '3', 'x-d': '4' };
    app.get('/whole', (req, res) => {
      res.set('Date', `${OLD}`).set('x-n', String(req.query.n));
      seen.push(res.get('date') as string);
      res.send('x');
    });
    // Fixed headers, then a Date and a count that change: the route's kept head is reused up to where they differ.
    app.get('/shared', (req, res) => res.set(fixed).set('date', req.query.d as string).set('x-n', String(req.query.n)).send('y'));
    app.get('/pieces', (_req, res) => {
      res.set('date', OLD);
      res.write('a');
      res.end('b');
    });
    app.get('/not-modified', (_req, res) => res.set('date', OLD).status(304).end());
    const head = new PreparedHead(200, { 'content-type': 'text/plain' });
    app.get('/prepared', (_req, res) => res.set('date', OLD).sendPrepared(head, 'p'));
    const { port } = await start(app);
    const requests = [
      'GET /whole?n=1',
      'GET /whole?n=2',
      'HEAD /whole?n=3',
      `GET /shared?n=1&d=${encodeURIComponent(OLD)}`,
      `GET /shared?n=2&d=${encodeURIComponent('Fri, 02 Jan 1970 00:00:00 GMT')}`,
      'GET /pieces',
      'GET /not-modified',
      'GET /prepared',
    ];
    // A HEAD answer's Content-Length counts no body, so the stream is read up to the last answer's body.
    const client = await rawConnection(port);
    let text: string;
    try {
      await client.write(requests.map((r) => `${r} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
      text = await client.until((t) => dateLines(t).length === requests.length && t.endsWith('\r\n\r\np'), 'every answer');
    } finally {
      client.socket.destroy();
    }
    const lines = dateLines(text);
    expect(lines).toHaveLength(requests.length);
    for (const [i, dates] of lines.entries()) {
      expect(dates, requests[i]).toHaveLength(1);
      expect(current(dates[0]!), `${requests[i]}: ${dates[0]}`).toBe(true);
    }
    // The app still reads what it set.
    expect(seen).toEqual([OLD, OLD, OLD]);
  });

  it('writes one Date line on a 101 whose upgrade() set one', async () => {
    const app = server();
    app.ws('/ws', {
      upgrade: (_req, res) => {
        res.set('date', OLD).set('x-up', 'yes');
        return {};
      },
      message: () => {},
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    try {
      await client.write(
        'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      const text = await client.until((t) => t.includes('\r\n\r\n'), 'the 101');
      expect(text).toMatch(/^HTTP\/1\.1 101 /);
      expect(text).toContain('\r\nx-up: yes\r\n');
      const [dates] = dateLines(text);
      expect(dates).toHaveLength(1);
      expect(current(dates![0]!)).toBe(true);
    } finally {
      client.socket.destroy();
    }
  });
});
