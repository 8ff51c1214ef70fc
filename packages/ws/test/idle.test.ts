import { connect as tcp } from 'node:net';
import { connect, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { websocket } from '../src/index.ts';
import { server } from './helpers.ts';

// uWS checks timeouts every 4 s: these tests take about 10 s, in a file of their own so that
// they run beside the others.
describe('idleTimeout', () => {
  it(
    'closes a client that answers no ping after idleTimeout, keeps one that does, and closes a silent one without pings',
    async () => {
      const app = server();
      const closed: Array<{ route: string; code: number; reason: string; after: number }> = [];
      const started = Date.now();
      const record = (route: string) => (_s: unknown, code: number, reason: string) =>
        void closed.push({ route, code, reason, after: Date.now() - started });
      app.ws('/pinged', websocket({ idleTimeout: 8, close: record('pinged') }));
      app.ws('/quiet', websocket({ idleTimeout: 8, sendPingsAutomatically: false, close: record('quiet') }));
      const { port, url } = await start(app, 'ws');

      // A raw client: handshake, then it reads what comes but never answers a ping.
      const deaf = tcp(port, '127.0.0.1');
      let received = Buffer.alloc(0);
      let deafClosed = false;
      deaf.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
      deaf.on('close', () => (deafClosed = true));
      deaf.on('error', () => {});
      await new Promise((r) => deaf.on('connect', r));
      deaf.write(
        'GET /pinged HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      // The ws client answers pings by itself.
      const lively = await connect(`${url}/pinged`);
      let pings = 0;
      lively.on('ping', () => pings++);
      const quiet = await connect(`${url}/quiet`);
      let quietPings = 0;
      quiet.on('ping', () => quietPings++);

      await until(() => deafClosed && closed.length === 2, 'the deaf and the quiet client to be closed', 30_000);
      const head = received.indexOf('\r\n\r\n') + 4;
      // After the 101: a ping frame (opcode 9) the client never answered.
      expect(received[head]).toBe(0x89);
      expect(closed.map((c) => [c.route, c.code, c.reason]).sort()).toEqual([
        ['pinged', 1006, 'WebSocket timed out from inactivity'],
        ['quiet', 1006, 'WebSocket timed out from inactivity'],
      ]);
      for (const c of closed) expect(c.after).toBeGreaterThanOrEqual(6_000);
      expect(quietPings).toBe(0);
      expect((await quiet.closedWith).code).toBe(1006);
      expect(pings).toBeGreaterThan(0);
      expect(lively.readyState).toBe(lively.OPEN);
    },
    45_000,
  );
});
