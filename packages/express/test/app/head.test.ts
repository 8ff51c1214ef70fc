// HEAD on both entries, compared with express@4 and express@5 over raw sockets: the Content-Length
// an app sets (`res.set('Content-Length', 100).end()`) goes out as Node sends it, no body bytes
// follow, and the connection answers the next request.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { rawConnection, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, both } from './harness.ts';

/** The HEAD answer's status line and Content-Length / Transfer-Encoding lines, what came before the next answer, and that next answer's status. */
interface HeadAnswer {
  status: string;
  length: string[];
  encoding: string[];
  between: string;
  next: string;
}

/** HEAD `path`, then `GET /after` on the same connection. */
async function headThenNext(base: string, path: string): Promise<HeadAnswer> {
  const client = await rawConnection(Number(new URL(base).port));
  await client.write(`HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await client.until((text) => text.includes('\r\n\r\n'), `the head of HEAD ${path}`);
  await new Promise((r) => setTimeout(r, 50));
  await client.write('GET /after HTTP/1.1\r\nHost: x\r\n\r\n');
  const text = await client.until((t) => t.endsWith('after'), `the answer after HEAD ${path}`);
  client.socket.destroy();
  const end = text.indexOf('\r\n\r\n');
  const [status, ...lines] = text.slice(0, end).split('\r\n');
  const named = (name: string) => lines.filter((l) => l.toLowerCase().startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trim());
  const rest = text.slice(end + 4);
  const at = rest.indexOf('HTTP/1.1 ');
  return { status: status!, length: named('content-length'), encoding: named('transfer-encoding'), between: rest.slice(0, at), next: rest.slice(at, at + 15) };
}

async function build(major: 4 | 5) {
  const dir = await tempDir('velox-xhead-');
  await writeFile(join(dir, 'site.css'), 'body { color: red }\n');
  const pair = await both(
    (express: AnyExpress) => {
      const app = express();
      app.head('/own', (_req: any, res: any) => res.set('Content-Length', 100).end());
      app.get('/get', (_req: any, res: any) => res.set('Content-Length', 100).end());
      app.get('/later', (_req: any, res: any) => {
        setTimeout(() => res.set('Content-Length', '4096').end(), 5);
      });
      app.get('/write-head', (_req: any, res: any) => {
        res.writeHead(200, { 'Content-Length': 100 });
        res.end();
      });
      app.get('/set-header', (_req: any, res: any) => {
        res.setHeader('Content-Length', '100');
        res.end();
      });
      app.get('/watched', (_req: any, res: any) => {
        res.on('finish', () => {});
        res.set('Content-Length', 100).end();
      });
      app.get('/send', (_req: any, res: any) => res.send('héllo wörld'));
      app.get('/pieces', (_req: any, res: any) => {
        res.write('a');
        res.end('bcd');
      });
      app.get('/pipe', (_req: any, res: any) => {
        Readable.from([Buffer.from('hello')]).pipe(res);
      });
      app.get('/declared-pieces', (_req: any, res: any) => {
        res.setHeader('Content-Length', '11');
        res.write('hello ');
        res.end('world');
      });
      app.use('/static', express.static(dir));
      app.get('/after', (_req: any, res: any) => res.send('after'));
      return app;
    },
    { major },
  );
  return pair;
}

for (const major of [4, 5] as const) {
  describe(`HEAD on the Express ${major} entry, compared with express@${major}`, () => {
    it('sends the Content-Length the app set, no body, and answers the next request on the connection', async () => {
      const pair = await build(major);
      for (const path of ['/own', '/get', '/later', '/write-head', '/set-header', '/watched']) {
        const [theirs, ours] = await Promise.all([headThenNext(pair.express, path), headThenNext(pair.velox, path)]);
        expect(theirs.length, `express@${major} ${path}`).not.toEqual([]);
        expect(ours, path).toEqual(theirs);
      }
    });

    it('sends the length of the body res.send() and express.static would send, and none for a body written in pieces', async () => {
      const pair = await build(major);
      for (const path of ['/send', '/static/site.css', '/static/site.css', '/pieces', '/pipe', '/declared-pieces']) {
        const [theirs, ours] = await Promise.all([headThenNext(pair.express, path), headThenNext(pair.velox, path)]);
        expect(theirs.between, path).toBe('');
        expect(ours, path).toEqual(theirs);
      }
    });
  });
}
