import { connect as tcp } from 'node:net';
import { type Request, VeloxError } from '@velox/core';
import { attempt, connect, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type Socket, websocket } from '../src/index.ts';
import { server } from './helpers.ts';

const HANDSHAKE =
  'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';

describe('websocket() upgrade', () => {
  it('runs the middlewares, then upgrade; its result (sync or async) becomes socket.data', async () => {
    const app = server();
    const requireUser = (req: Request, res: any, next: (err?: unknown) => void) =>
      req.get('x-user') ? next() : res.status(401).send('Sign in first');
    const seen: unknown[] = [];
    app.ws(
      '/sync',
      requireUser,
      websocket({ upgrade: (req) => ({ user: req.get('x-user') }), open: (s) => void seen.push(s.data) }),
    );
    app.ws(
      '/async/:id',
      requireUser,
      websocket({
        upgrade: async (req) => {
          await new Promise((r) => setTimeout(r, 5));
          return { user: req.get('x-user'), id: req.params.id };
        },
        open: (s) => void seen.push(s.data),
      }),
    );
    app.ws('/none', websocket({ open: (s) => void seen.push(s.data) }));
    const { url } = await start(app, 'ws');
    expect(await attempt(`${url}/sync`)).toEqual({ status: 401, body: 'Sign in first' });
    await connect(`${url}/sync`, { headers: { 'x-user': 'ann' } });
    await connect(`${url}/async/7`, { headers: { 'x-user': 'bob' } });
    await connect(`${url}/none`);
    await until(() => seen.length === 3, 'three sockets');
    expect(seen).toEqual([{ user: 'ann' }, { user: 'bob', id: '7' }, undefined]);
  });

  it('answers the status and short reason of an upgrade that refuses: thrown, rejected, or answered through res', async () => {
    const app = server();
    app.ws(
      '/r',
      websocket({
        upgrade: async (req, res) => {
          const how = req.query.how;
          if (how === 'throw') throw new VeloxError('APP_FORBIDDEN', 'Not in this room', { status: 403 });
          if (how === 'crash') throw new Error('database down');
          if (how === 'answer') {
            res.status(429).send('Too many sockets');
            return undefined;
          }
          return undefined;
        },
      }),
    );
    const { url } = await start(app, 'ws');
    const forbidden = await attempt(`${url}/r?how=throw`);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body)).toMatchObject({ statusCode: 403, code: 'APP_FORBIDDEN', message: 'Not in this room' });
    const crashed = await attempt(`${url}/r?how=crash`);
    expect(crashed.status).toBe(500);
    expect(JSON.parse(crashed.body)).toMatchObject({ statusCode: 500, message: 'Internal Server Error' });
    expect(app.logs.join('\n')).toContain('database down');
    expect(await attempt(`${url}/r?how=answer`)).toEqual({ status: 429, body: 'Too many sockets' });
    expect((await attempt(`${url}/r?how=ok`)).status).toBe(101);
  });

  it('never upgrades a client that left while upgrade awaited, and keeps serving', async () => {
    const app = server();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    let gone = 0;
    const opened: Array<Socket<{ slow: boolean }>> = [];
    app.ws(
      '/slow',
      websocket<{ slow: boolean }>({
        upgrade: async (req, res) => {
          started++;
          res.on('close', () => gone++);
          if (req.query.slow) await gate;
          return { slow: Boolean(req.query.slow) };
        },
        open: (s) => void opened.push(s),
      }),
    );
    const { port, url } = await start(app, 'ws');
    const leavers = [];
    for (let i = 0; i < 10; i++) {
      const socket = tcp(port, '127.0.0.1');
      await new Promise((r) => socket.on('connect', r));
      socket.write(`GET /slow?slow=1 HTTP/1.1\r\nHost: x\r\n${HANDSHAKE}`);
      leavers.push(socket);
    }
    await until(() => started === 10, 'ten upgrades to start');
    for (const socket of leavers) socket.destroy();
    await until(() => gone === 10, 'the server to see ten clients leave');
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(opened).toEqual([]);
    const client = await connect(`${url}/slow`);
    await until(() => opened.length === 1, 'a fresh socket');
    expect(opened[0]!.data).toEqual({ slow: false });
    expect(opened[0]!.send('ok')).toBe('sent');
    await until(() => client.inbox.length === 1, 'the reply');
    expect(app.logs).toEqual([]);
  });

  it('answers 404 to a plain GET on a WebSocket route (no upgrade headers)', async () => {
    const app = server();
    app.ws('/only-ws', websocket());
    const { port } = await start(app, 'ws');
    const res = await fetch(`http://127.0.0.1:${port}/only-ws`);
    expect(res.status).toBe(404);
  });
});
