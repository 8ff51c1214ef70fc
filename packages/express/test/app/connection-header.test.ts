import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { raw, rawConnection, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, both } from './harness.ts';

/** The answer's Connection and Keep-Alive lines (lower-case, in order), and whether the server closed the connection. */
async function connection(base: string, request: string): Promise<{ lines: string[]; closed: boolean; status: string }> {
  const { text, closed } = await raw(base, request, { quietMs: 250 });
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  const [status, ...lines] = head.split('\r\n');
  return { status: status ?? '', lines: lines.map((l) => l.toLowerCase()).filter((l) => /^(connection|keep-alive):/.test(l)), closed };
}

function get(path: string, extra = '', method = 'GET'): string {
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
}

describe("express() says what Node's http says about the connection, compared with express@4", () => {
  it('sends Connection: keep-alive and Keep-Alive: timeout=5, or Connection: close where the connection closes', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'public'));
    await writeFile(join(dir, 'public', 'a.txt'), 'static text');
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.use('/static', express.static(join(dir, 'public')));
      app.get('/text', (req: any, res: any) => res.send('hello'));
      app.get('/json', (req: any, res: any) => res.json({ a: 1 }));
      app.get('/none', (req: any, res: any) => res.sendStatus(204));
      app.get('/chunks', (req: any, res: any) => {
        res.write('a');
        setTimeout(() => res.end('b'), 5);
      });
      app.get('/close', (req: any, res: any) => res.set('Connection', 'close').send('bye'));
      app.get('/ka', (req: any, res: any) => res.set('Keep-Alive', 'timeout=9').send('kept'));
      app.get('/upgrade', (req: any, res: any) => res.set('Connection', 'upgrade').send('odd'));
      app.get('/error', () => {
        throw new Error('boom');
      });
      return app;
    });
    const cases: Array<[string, string]> = [
      ['a text', get('/text')],
      ['JSON', get('/json')],
      ['204', get('/none')],
      ['a chunked body', get('/chunks')],
      ['HEAD', get('/text', '', 'HEAD')],
      ['304', get('/text', 'If-None-Match: W/"5-qvTGHdzF6KLavt4PO0gs2a6pQ00"\r\n')],
      ['a static file', get('/static/a.txt')],
      ['the final 404', get('/missing')],
      ['the final 500', get('/error')],
      ['a request that asks to close', get('/text', 'Connection: close\r\n')],
      ['a request that asks to close, upper case', get('/json', 'Connection: Close\r\n')],
      ['HEAD that asks to close (as fetch sends it)', get('/text', 'Connection: close\r\n', 'HEAD')],
      ['a request that asks for keep-alive', get('/text', 'Connection: keep-alive\r\n')],
      ['an app that says Connection: close', get('/close')],
      ['an app that sets Keep-Alive', get('/ka')],
      ['an app that sets another Connection', get('/upgrade')],
    ];
    for (const [what, request] of cases) {
      const [theirs, ours] = await Promise.all([connection(pair.express, request), connection(pair.velox, request)]);
      expect(theirs.lines.length, `express@4 has a Connection line: ${what}`).toBeGreaterThan(0);
      expect(ours.status, what).toBe(theirs.status);
      expect(ours.lines, what).toEqual(theirs.lines);
      expect(ours.closed, `closed: ${what}`).toBe(theirs.closed);
    }
  });

  it('keeps serving further requests on a kept-alive connection, and closes after one that asked to close', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/n/:n', (req: any, res: any) => res.send(req.params.n));
      return app;
    });
    const session = async (base: string) => {
      const client = await rawConnection(Number(new URL(base).port));
      for (const [n, extra] of [['1', ''], ['2', ''], ['3', 'Connection: close\r\n']] as const) {
        await client.write(get(`/n/${n}`, extra));
        await client.until((text) => text.endsWith(`\r\n\r\n${n}`), `answer ${n}`);
      }
      await client.closed;
      return client.text().match(/^connection: .*$/gim);
    };
    const [theirs, ours] = await Promise.all([session(pair.express), session(pair.velox)]);
    expect(theirs).toEqual(['Connection: keep-alive', 'Connection: keep-alive', 'Connection: close']);
    expect(ours).toEqual(theirs);
  });

  it('can be turned off with the velox options, and keeps the app-set value', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.set('velox options', { keepAliveHeader: false });
      app.get('/', (req: any, res: any) => res.send('hi'));
      return app;
    });
    const ours = await connection(pair.velox, get('/'));
    expect(ours.status).toBe('HTTP/1.1 200 OK');
    expect(ours.lines).toEqual([]);
    expect(ours.closed).toBe(false);
  });
});
