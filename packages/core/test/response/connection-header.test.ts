import { raw, rawConnection, sleep, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, PreparedHead, Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** The answer's status line, its Connection and Keep-Alive lines (as sent), and whether the server closed the connection. */
async function ask(port: number, request: string): Promise<{ status: string; lines: string[]; closed: boolean; text: string }> {
  const { text, closed } = await raw(port, request, { quietMs: 250 });
  const [status, ...lines] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
  return { status: status ?? '', lines: lines.filter((l) => /^(connection|keep-alive):/i.test(l)), closed, text };
}

function get(path: string, extra = '', method = 'GET'): string {
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
}

const KEPT = ['Connection: keep-alive', 'Keep-Alive: timeout=7'];

function routes(app: Server): Server {
  const prepared = new PreparedHead(200, { 'content-type': 'text/plain' });
  app.get('/text', (_req, res) => res.send('hello'));
  app.get('/json', (_req, res) => res.json({ a: 1 }));
  app.get('/prepared', (_req, res) => res.sendPrepared(prepared, 'ready'));
  app.get('/none', (_req, res) => res.status(204).end());
  app.get('/chunks', (_req, res) => {
    res.write('a');
    setTimeout(() => res.end('b'), 5);
  });
  app.get('/reason', (_req, res) => {
    res.statusMessage = 'Fine';
    res.send('ok');
  });
  app.get('/close', (_req, res) => res.set('connection', 'close').send('bye'));
  app.get('/close-list', (_req, res) => res.set('Connection', 'Upgrade, Close').send('bye'));
  app.get('/ka', (_req, res) => res.set('keep-alive', 'timeout=9').send('kept'));
  app.post('/json', async (req, res) => res.json(await req.json()));
  return app;
}

describe('the keepAliveHeader option', () => {
  it('is off by default: no Connection line on a response that keeps the connection open', async () => {
    const { port } = await start(routes(server()));
    for (const path of ['/text', '/json', '/prepared', '/none', '/chunks']) {
      const answer = await ask(port, get(path));
      expect(answer.status, path).toMatch(/^HTTP\/1\.1 20[04]/);
      expect(answer.lines, path).toEqual([]);
      expect(answer.closed, path).toBe(false);
    }
  });

  it('says Connection: keep-alive and Keep-Alive: timeout=n on every kind of response', async () => {
    const app = routes(server({ keepAliveHeader: 7 }));
    expect(app.config.keepAliveHeader).toBe(7);
    const { port } = await start(app);
    const cases: Array<[string, string]> = [
      ['send', get('/text')],
      ['json', get('/json')],
      ['a prepared head', get('/prepared')],
      ['204', get('/none')],
      ['a chunked body', get('/chunks')],
      ['a status text of its own', get('/reason')],
      ['HEAD', get('/text', '', 'HEAD')],
      ['the not-found answer', get('/missing')],
      ['a request that asks for keep-alive', get('/text', 'Connection: keep-alive\r\n')],
    ];
    for (const [what, request] of cases) {
      // Twice: the second answer comes from the route's cached head.
      for (const round of [1, 2]) {
        const answer = await ask(port, request);
        expect(answer.lines, `${what} (${round})`).toEqual(KEPT);
        expect(answer.closed, `${what} (${round})`).toBe(false);
      }
    }
    expect((await ask(port, get('/reason'))).status).toBe('HTTP/1.1 200 Fine');
  });

  it('says Connection: close, once, where the app says so; keeps an app-set Keep-Alive', async () => {
    const { port } = await start(routes(server({ keepAliveHeader: 7 })));
    const answer = await ask(port, get('/close'));
    expect(answer.lines.map((l) => l.toLowerCase())).toEqual(['connection: close']);
    expect(answer.closed).toBe(true);
    // An app-set Keep-Alive is the app's: only Connection is added.
    const kept = await ask(port, get('/ka'));
    expect(kept.lines).toEqual(['keep-alive: timeout=9', 'Connection: keep-alive']);
  });

  it('says Connection: close, once, on the answer to a request that asked to close, and closes', async () => {
    const { port } = await start(routes(server({ keepAliveHeader: 7 })));
    for (const [what, request] of [
      ['send', get('/text', 'Connection: close\r\n')],
      ['json, in capitals', get('/json', 'Connection: CLOSE\r\n')],
      ['a prepared head', get('/prepared', 'Connection: close\r\n')],
      ['HEAD', get('/text', 'Connection: close\r\n', 'HEAD')],
      ['a chunked body', get('/chunks', 'Connection: close\r\n')],
      ['the app set Keep-Alive', get('/ka', 'Connection: close\r\n')],
    ] as const) {
      const answer = await ask(port, request);
      expect(answer.status, what).toBe('HTTP/1.1 200 OK');
      expect(answer.lines.map((l) => l.toLowerCase()).filter((l) => l.startsWith('connection')), what).toEqual(['connection: close']);
      expect(answer.closed, what).toBe(true);
    }
  });

  it('answers a body cut at the limit with one Connection: close', async () => {
    const { port } = await start(routes(server({ keepAliveHeader: 7, maxBodyLength: 16 })));
    const body = JSON.stringify({ text: 'x'.repeat(64) });
    const answer = await ask(port, `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(answer.status).toBe('HTTP/1.1 413 Payload Too Large');
    // One line (the refused body's own), not the option's keep-alive beside it. The connection
    // closes once the client does, as asked (see test/faults/refused-body.test.ts).
    expect(answer.lines.map((l) => l.toLowerCase())).toEqual(['connection: close']);
  });

  it('throws VELOX_ERR_INVALID_OPTION for anything but a positive whole number of seconds or false', () => {
    for (const bad of [0, -1, 1.5, '5', true, Number.NaN]) {
      expect(() => new Server({ logger: false, keepAliveHeader: bad as never }), String(bad)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    }
  });
});

describe('Connection: close set by the app', () => {
  it('closes the connection after the response (as Node does), with one Connection line, whatever the option', async () => {
    const { port } = await start(routes(server()));
    for (const path of ['/close', '/close-list']) {
      const answer = await ask(port, get(path));
      expect(answer.text.endsWith('bye'), path).toBe(true);
      expect(answer.lines.length, path).toBe(1);
      expect(answer.lines[0]!.toLowerCase(), path).toBe('connection: close');
      expect(answer.closed, path).toBe(true);
    }
  });

  it('is sent once when the server closes with the response in flight', async () => {
    const app = server({ keepAliveHeader: 7 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/slow', async (_req, res) => {
      await held;
      res.set('Connection', 'keep-alive').send('late');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write(get('/slow'));
    await sleep(50);
    const closing = app.close();
    await sleep(50); // close() marks the responses in flight after one poll of the event loop
    release();
    await client.until((text) => text.endsWith('late'), 'the held answer');
    await client.closed;
    await closing;
    const lines = client.text().split('\r\n').filter((l) => /^(connection|keep-alive):/i.test(l));
    expect(lines.map((l) => l.toLowerCase())).toEqual(['connection: close']);
  });
});
