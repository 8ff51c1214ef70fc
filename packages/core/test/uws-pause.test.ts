// What uWS v20.51's HttpResponse.pause() does with a request body, pinned with a bare uWS app so
// that an upgrade that changes it shows up here. Core's body stream pauses uWS when its reader is
// slow (src/body.ts); how much that holds back depends on this.
//
// uWS (uSockets since 2024-02) reads the socket again at once whenever a read filled its whole
// 512 KB buffer, without looking at whether the socket was paused in between. So a pause() made
// in the callback of a full 512 KB chunk takes effect only once a read comes back shorter, that
// is once the socket's receive buffer holds less than 512 KB: a sender that keeps that buffer
// full (on loopback, another process writing as fast as it can) is read on while paused. After a
// shorter read, a pause holds. (The read-again loop came into uSockets in February 2024, after
// uWS v20.30.) Upstream documents that some buffered data may still arrive after pause().
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadUws } from '../src/index.ts';

const FULL = 512 * 1024;

/** A client in another process that sends `size` bytes as fast as the socket takes them. */
function sender(port: number, size: number) {
  const script = `
    const s = require('node:net').connect(${port}, '127.0.0.1', () => {
      s.write('POST / HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: ${size}\\r\\n\\r\\n');
      const block = Buffer.alloc(1024 * 1024, 1);
      let sent = 0;
      const pump = () => { while (sent < ${size}) { sent += block.length; if (!s.write(block)) return s.once('drain', pump); } };
      pump();
    });
    s.on('data', () => s.destroy());
    s.on('error', () => {});`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

describe("uWS v20.51's pause() on a request body", () => {
  it('reads on after a pause made on a full 512 KB read, and only then', { timeout: 60_000 }, async () => {
    const uws = loadUws();
    const size = 64 * 1024 * 1024;
    const chunks: Array<{ length: number; whilePaused: boolean }> = [];
    let listen: unknown;
    const app = uws.App().post('/*', (res) => {
      let paused = false;
      let over = false;
      res.onAborted(() => {
        over = true;
      });
      res.onData((ab, isLast) => {
        chunks.push({ length: ab.byteLength, whilePaused: paused });
        if (isLast) {
          over = true;
          return void res.cork(() => res.end('done'));
        }
        if (!paused) {
          // Paused on every chunk, resumed once the event loop turns.
          paused = true;
          res.pause();
          setImmediate(() => {
            paused = false;
            if (!over) res.resume();
          });
        }
      });
    });
    const port = await new Promise<number>((resolve) =>
      app.listen('127.0.0.1', 0, (token) => {
        listen = token;
        resolve(uws.us_socket_local_port(token));
      }),
    );
    const client = sender(port, size);
    try {
      await expect.poll(() => chunks.reduce((n, c) => n + c.length, 0), { timeout: 50_000, interval: 50 }).toBe(size);
    } finally {
      client.kill();
      uws.us_listen_socket_close(listen as never);
      app.close();
    }
    const late = chunks.filter((c, i) => c.whilePaused && i > 0);
    // It happens: chunks arrive while the response is paused.
    expect(late.length).toBeGreaterThan(0);
    // And only right after a full read: each chunk that came while paused follows a 512 KB one.
    chunks.forEach((c, i) => {
      if (c.whilePaused) expect([i, chunks[i - 1]?.length]).toEqual([i, FULL]);
    });
    expect(Math.max(...chunks.map((c) => c.length))).toBe(FULL);
  });
});
