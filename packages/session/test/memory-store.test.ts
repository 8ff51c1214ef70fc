import { connect } from 'node:net';
import { listen, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, SessionErrorCodes, session } from '../src/index.ts';
import { EXPIRED_LOOKAHEAD, SWEEP_SLICE, storeWork } from '../src/memory-store.ts';
import { Browser, SECRET, server } from './helpers.ts';

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

describe('MemoryStore at maxEntries', () => {
  it('evicts the least recently used session first, one per new session, a read counting as a use', () => {
    const store = new MemoryStore({ maxEntries: 5000 });
    for (let i = 0; i < 5000; i++) store.setSync(`s${i}`, record({ i }), 60_000);
    // s0 is read and s1 touched: they are now the two used last, after s4999.
    expect(store.getSync('s0')?.data).toEqual({ i: 0 });
    expect(store.touchSync('s1', 60_000)).toBe(true);
    // Reading an id the store does not have changes no order, so each step can check that the
    // session it expects gone is gone: one eviction per new session, s2 first, s4999 last.
    for (let n = 0; n < 4998; n++) {
      store.setSync(`new${n}`, record({ n }), 60_000);
      expect(store.evictions).toBe(n + 1);
      expect(store.size).toBe(5000);
      expect(store.getSync(`s${n + 2}`)).toBeUndefined();
    }
    // Then s0 and s1, in the order they were used, then the new ones in the order they came.
    store.setSync('new4998', record({}), 60_000);
    expect(store.getSync('s0')).toBeUndefined();
    store.setSync('new4999', record({}), 60_000);
    expect(store.getSync('s1')).toBeUndefined();
    store.setSync('new5000', record({}), 60_000);
    expect(store.getSync('new0')).toBeUndefined();
    expect(store.evictions).toBe(5001);
    for (let n = 1; n <= 5000; n++) expect(store.getSync(`new${n}`)).toBeDefined();
    store.close();
  });

  it('stores a session at the default cap of 100,000 without looking through the store', () => {
    const store = new MemoryStore();
    for (let i = 0; i < 100_000; i++) store.setSync(`s${i}`, record({ i }), 60_000);
    expect(store.size).toBe(100_000);
    // Every way to go through a Map is watched while 10,000 sessions are stored at the cap: a
    // sweep of the store on each would go through its 100,000 entries 10,000 times.
    const proto = Map.prototype as unknown as Record<PropertyKey, (...args: unknown[]) => unknown>;
    const watched = [Symbol.iterator, 'entries', 'keys', 'values', 'forEach'] as const;
    const originals = watched.map((name) => proto[name]!);
    let iterations = 0;
    watched.forEach((name, i) => {
      proto[name] = function (this: unknown, ...args: unknown[]) {
        iterations++;
        return originals[i]!.apply(this, args);
      };
    });
    const examinedBefore = storeWork.examined;
    try {
      for (let n = 0; n < 10_000; n++) store.setSync(`new${n}`, record({ n }), 60_000);
    } finally {
      watched.forEach((name, i) => {
        proto[name] = originals[i]!;
      });
    }
    expect(iterations).toBe(0);
    // Each store at the cap looks at a fixed number of the least recently used entries, at most.
    expect(storeWork.examined - examinedBefore).toBeLessThanOrEqual(10_000 * EXPIRED_LOOKAHEAD);
    expect(store.evictions).toBe(10_000);
    expect(store.size).toBe(100_000);
    for (let i = 0; i < 10_000; i++) expect(store.getSync(`s${i}`)).toBeUndefined();
    for (let i = 10_000; i < 100_000; i += 997) expect(store.getSync(`s${i}`)?.data).toEqual({ i });
    store.close();
  });

  it('keeps a session in use while a flood of cookie-less visitors fills the store many times over', async () => {
    const store = new MemoryStore({ maxEntries: 2000 });
    const a = server();
    // The default touchAfter (3 minutes): the visitor's reads do not move its idle timer.
    await a.register(session, { secret: SECRET, store });
    a.get('/visits', async (req, res) => {
      await req.session.start();
      const visits = (Number(req.session.get('visits')) || 0) + 1;
      req.session.set('visits', visits);
      res.json({ visits, id: req.session.id });
    });
    a.get('/new', async (req, res) => {
      await req.session.start();
      req.session.set('cart', []);
      res.send('ok');
    });
    const url = await listen(a);
    const port = Number(new URL(url).port);
    const visitor = new Browser(url);
    const first = (await visitor.get('/visits')).body;
    expect(first.visits).toBe(1);
    // 10 waves of 1,000 anonymous visitors, each given a session; the visitor comes back after each.
    let anonymous = 0;
    for (let wave = 1; wave <= 10; wave++) {
      await pipelined(port, 1000, 500, () => anonymous++);
      const again = await visitor.get('/visits');
      expect(again.body).toEqual({ visits: wave + 1, id: first.id });
    }
    expect(anonymous).toBe(10_000);
    expect(store.size).toBe(2000);
    expect(store.evictions).toBe(10_001 - 2000);
  });

  it('sweeps expired sessions a slice at a time, without any request', async () => {
    // The first sweep comes after every one of the 5,000 expired, and the next long after it ended.
    const store = new MemoryStore({ sweepInterval: 500 });
    for (let i = 0; i < 5000; i++) store.setSync(`s${i}`, record({ i }), 20);
    store.setSync('long', record({}), 60_000);
    // One look at the size per turn of the event loop, until only the live session is left:
    // the sweep removes the 5,000 over several turns, at most a slice in each.
    const sizes = [store.size];
    const deadline = Date.now() + 10_000;
    while (store.size > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      if (store.size !== sizes.at(-1)) sizes.push(store.size);
    }
    expect(sizes.at(-1)).toBe(1);
    expect(sizes.length).toBeGreaterThanOrEqual(1 + Math.ceil(5000 / SWEEP_SLICE));
    for (let i = 1; i < sizes.length; i++) expect(sizes[i - 1]! - sizes[i]!).toBeLessThanOrEqual(SWEEP_SLICE);
    expect(store.getSync('long')).toBeDefined();
    store.close();
  });

  it('finishes a sweep while sessions are read, removed and added between its slices', async () => {
    const store = new MemoryStore({ sweepInterval: 50 });
    // Even sessions expire, odd ones live; the sweep starts after the even ones expired.
    for (let i = 0; i < 6000; i++) store.setSync(`s${i}`, record({ i }), i % 2 === 0 ? 20 : 60_000);
    const live = new Set<string>();
    for (let i = 1; i < 6000; i += 2) live.add(`s${i}`);
    let turn = 0;
    const deadline = Date.now() + 10_000;
    while (store.size > live.size && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      // Between slices: a live session far ahead is read (it moves to the end), one is destroyed,
      // and a new one comes.
      turn++;
      const read = `s${(turn * 997) % 6000 | 1}`;
      if (live.has(read)) expect(store.getSync(read)).toBeDefined();
      const gone = `s${(turn * 389) % 6000 | 1}`;
      await store.destroy(gone);
      live.delete(gone);
      store.setSync(`t${turn}`, record({ turn }), 60_000);
      live.add(`t${turn}`);
    }
    expect(turn).toBeGreaterThan(1);
    expect(store.size).toBe(live.size);
    for (const id of live) expect(store.getSync(id)).toBeDefined();
    store.close();
  });
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
