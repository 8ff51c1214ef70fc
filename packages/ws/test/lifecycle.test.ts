import { connect, exitCode, REDIS_URL, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type Socket, websocket } from '../src/index.ts';
import { server, startNode, uniquePrefix } from './helpers.ts';

describe('app.close()', () => {
  it('closes every socket with 1001 and waits for close handlers that return a promise', async () => {
    const app = server();
    const events: string[] = [];
    const sockets: Socket[] = [];
    app.ws(
      '/c',
      websocket({
        open: (s) => void sockets.push(s),
        async close(s, code, reason) {
          events.push(`close ${code} ${reason} ${s.closed}`);
          await new Promise((r) => setTimeout(r, 50));
          events.push('saved');
        },
      }),
    );
    app.addHook('onClose', () => void events.push('onClose'));
    const { url } = await start(app, 'ws');
    const clients = [await connect(`${url}/c`), await connect(`${url}/c`)];
    await until(() => sockets.length === 2, 'two sockets');
    await app.close();
    expect(events).toEqual([
      'close 1001 Server shutting down true',
      'close 1001 Server shutting down true',
      'saved',
      'saved',
      'onClose',
    ]);
    for (const c of clients) expect(await c.closedWith).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(sockets.map((s) => s.send('late'))).toEqual(['dropped', 'dropped']);
  });

  it('lets the process exit by itself after close, with sockets, compression and redisPubSub', async () => {
    const node = await startNode({ REDIS_URL, PREFIX: uniquePrefix(), COMPRESSION: '1' });
    const client = await connect(`ws://127.0.0.1:${node.port}/t/news`, { perMessageDeflate: true });
    node.proc.kill('SIGTERM');
    expect(await client.closedWith).toEqual({ code: 1001, reason: 'Server shutting down' });
    await until(() => node.stdout().includes('CLOSED'), 'the node to close', 10_000);
    const code = await exitCode(node, 5000);
    expect(code).toBe(0);
    expect(node.stderr()).toBe('');
  });
});
