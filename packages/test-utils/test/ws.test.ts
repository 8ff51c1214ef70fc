import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { attempt, connect, later, received, start, until } from '../src/index.ts';

/** A `ws` server on 127.0.0.1 that echoes, refuses /private with 401, and closes /bye with 4000; closed after the test. */
async function echoServer(): Promise<string> {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    if (req.url === '/private') return void socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno');
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (req.url === '/bye') return ws.close(4000, 'bye');
      ws.on('message', (data, binary) => ws.send(data, { binary }));
    });
  });
  later(() => new Promise((resolve) => http.close(resolve)));
  later(() => wss.close());
  const app = { listen: (port: number, host: string) => new Promise<{ port: number }>((resolve) => http.listen(port, host, () => resolve(http.address() as { port: number }))) };
  return (await start(app, 'ws')).url;
}

describe('connect()', () => {
  it('opens a client whose inbox collects every message, text and binary', async () => {
    const url = await echoServer();
    const client = await connect(`${url}/echo`);
    const got = received(client);
    client.send('hi');
    client.send(Buffer.from([1, 2]));
    await until(() => client.inbox.length === 2, 'both echoes');
    expect(client.inbox.map((m) => [m.text, m.binary])).toEqual([
      ['hi', false],
      ['\u0001\u0002', true],
    ]);
    expect(got).toEqual([
      { data: 'hi', binary: false },
      { data: '\u0001\u0002', binary: true },
    ]);
  });

  it('tells the close code and reason, and rejects when the upgrade is refused', async () => {
    const url = await echoServer();
    const client = await connect(`${url}/bye`);
    expect(await client.closedWith).toEqual({ code: 4000, reason: 'bye' });
    await expect(connect(`${url}/private`)).rejects.toThrow('HTTP 401');
  });
});

describe('attempt()', () => {
  it('resolves with the status and body of a refused upgrade, or 101', async () => {
    const url = await echoServer();
    expect(await attempt(`${url}/private`)).toEqual({ status: 401, body: 'no' });
    expect(await attempt(`${url}/echo`, { 'x-extra': '1' })).toEqual({ status: 101, body: '' });
  });
});
