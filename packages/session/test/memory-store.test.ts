import { connect } from 'node:net';
import { listen, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, SessionErrorCodes, session } from '../src/index.ts';
import { SECRET, server } from './helpers.ts';

const record = (data: Record<string, unknown>) => ({ created: Date.now(), seen: Date.now(), data });

describe('MemoryStore', () => {
  it('copies values in and out: no caller shares an object with the store', async () => {
    const store = new MemoryStore();
    const data = { cart: ['book'] };
    await store.set('a', record(data), 60_000);
    data.cart.push('changed after set');
    const first = await store.get('a');
    expect(first!.data).toEqual({ cart: ['book'] });
    (first!.data.cart as string[]).push('changed after get');
    const second = await store.get('a');
    expect(second!.data).toEqual({ cart: ['book'] });
    expect(second!.data).not.toBe(first!.data);
    const change = { set: { cart: ['pen'] }, delete: [], seen: Date.now() };
    await store.update('a', change, 60_000);
    change.set.cart.push('changed after update');
    expect((await store.get('a'))!.data).toEqual({ cart: ['pen'] });
  });

  it('applies changes to the record as it is now, and only while it exists', async () => {
    const store = new MemoryStore();
    await store.set('a', record({ x: 1, y: 2 }), 60_000);
    expect(await store.update('a', { set: { x: 10 }, delete: [], seen: 5 }, 60_000)).toBe(true);
    expect(await store.update('a', { set: { z: 3 }, delete: ['y'], seen: 6 }, 60_000)).toBe(true);
    expect(await store.get('a')).toMatchObject({ seen: 6, data: { x: 10, z: 3 } });
    await store.destroy('a');
    expect(await store.update('a', { set: { x: 11 }, delete: [], seen: 7 }, 60_000)).toBe(false);
    expect(await store.touch('a', 60_000)).toBe(false);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('hides expired records from get, update and touch, before any sweep', async () => {
    const store = new MemoryStore();
    await store.set('short', record({ x: 1 }), 30);
    await sleep(80);
    expect(await store.get('short')).toBeUndefined();
    await store.set('short2', record({ x: 1 }), 30);
    await sleep(80);
    expect(await store.touch('short2', 60_000)).toBe(false);
  });

  it('keeps at most maxEntries, evicting the session written or touched longest ago', async () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) await store.set(id, record({ id }), 60_000);
    await store.touch('a', 60_000); // b is now the one used longest ago
    await store.set('d', record({ id: 'd' }), 60_000);
    expect(store.size).toBe(3);
    expect(store.evictions).toBe(1);
    expect(await store.get('b')).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect((await store.get(id))?.data).toEqual({ id });
    // Replacing a record it has does not evict.
    await store.set('c', record({ id: 'c2' }), 60_000);
    expect(store.evictions).toBe(1);
  });

  it('evicts expired sessions before live ones when full', async () => {
    const store = new MemoryStore({ maxEntries: 2 });
    await store.set('live', record({}), 60_000);
    await store.set('dying', record({}), 20);
    await sleep(60);
    await store.set('new', record({}), 60_000);
    expect(store.evictions).toBe(0);
    expect(await store.get('live')).toBeDefined();
  });

  it('sweeps expired sessions on its timer, without any request', async () => {
    const store = new MemoryStore({ sweepInterval: 30 });
    for (let i = 0; i < 50; i++) await store.set(`s${i}`, record({ i }), 40);
    await store.set('long', record({}), 60_000);
    await until(() => store.size === 1, 'the sweep', 10_000);
    expect(await store.get('long')).toBeDefined();
    store.close();
  });

  it('refuses bad options', () => {
    expect(() => new MemoryStore({ maxEntries: 0 })).toThrow(expect.objectContaining({ code: SessionErrorCodes.INVALID_OPTION }));
    expect(() => new MemoryStore({ maxEntries: 1.5 })).toThrow(/maxEntries/);
    expect(() => new MemoryStore({ sweepInterval: 0 })).toThrow(/sweepInterval/);
  });

  it('frees 100,000 sessions made over real sockets once they expire', async () => {
    const store = new MemoryStore({ maxEntries: 200_000, sweepInterval: 250 });
    const a = server();
    await a.register(session, { secret: SECRET, store, idleTimeout: 8000 });
    a.get('/new', async (req, res) => {
      await req.session.start();
      req.session.set('payload', { user: 'someone', roles: ['a', 'b'], note: 'x'.repeat(200) });
      res.send('ok');
    });
    const url = new URL(await listen(a));
    const gc = (globalThis as { gc?: () => void }).gc!;
    expect(typeof gc).toBe('function');
    gc();
    const before = process.memoryUsage().heapUsed;

    // 100,000 requests, pipelined on 8 connections in batches: each begins and stores a session.
    const total = 100_000;
    const connections = 8;
    const batch = 500;
    const ids = new Set<string>();
    const per = total / connections;
    await Promise.all(
      Array.from({ length: connections }, () =>
        pipelined(Number(url.port), per, batch, (line) => {
          const id = /sid=([A-Za-z0-9_-]{22})\./.exec(line)?.[1];
          if (id) ids.add(id);
        }),
      ),
    );
    expect(ids.size).toBe(total);
    gc();
    const peak = process.memoryUsage().heapUsed;
    // ~100,000 records of a few hundred bytes are alive (fewer if the machine was slow enough
    // for the first ones to expire already).
    expect(store.size).toBeGreaterThan(0);
    expect(peak - before).toBeGreaterThan(10 * 1024 * 1024);

    // Nothing touches them: they expire and the sweeper drops them all.
    await until(() => store.size === 0, 'every session to be swept', 30_000);
    ids.clear();
    gc();
    const after = process.memoryUsage().heapUsed;
    // Generous: most of what the sessions took is back.
    expect(after - before).toBeLessThan((peak - before) / 2);
  }, 90_000);
});

/**
 * Sends `count` GET /new requests on one connection, `batch` at a time pipelined, and calls
 * `onCookie` with each Set-Cookie line. Resolves when every answer arrived.
 */
function pipelined(port: number, count: number, batch: number, onCookie: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const request = 'GET /new HTTP/1.1\r\nHost: x\r\n\r\n';
    let sent = 0;
    let answered = 0;
    let buffer = '';
    const send = () => {
      const n = Math.min(batch, count - sent);
      sent += n;
      socket.write(request.repeat(n));
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let end = buffer.lastIndexOf('\r\n\r\nok');
      if (end < 0) return;
      end += 6;
      const complete = buffer.slice(0, end);
      buffer = buffer.slice(end);
      for (const line of complete.split('\r\n')) {
        if (line.toLowerCase().startsWith('set-cookie: ')) {
          onCookie(line);
        } else if (line.includes('HTTP/1.1 ')) {
          // A status line follows the previous body ("ok") without a line break.
          if (!line.includes('HTTP/1.1 200')) return reject(new Error(line));
          answered++;
        }
      }
      if (answered === count) {
        socket.destroy();
        resolve();
      } else if (answered === sent) send();
    });
  });
}
