import { raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { PreparedHeader } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** The header lines of a raw response, without the ones uWS writes itself. */
function lines(text: string): string[] {
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  return head
    .split('\r\n')
    .slice(1)
    .filter((l) => !/^(date|uwebsockets|content-length|transfer-encoding):/i.test(l));
}

describe("a route's head cache", () => {
  it('writes a head that shares its first headers with the last one and differs after, byte for byte', async () => {
    const app = server();
    const block = Array.from({ length: 12 }, (_, i) => new PreparedHeader(`x-fixed-${i}`, `value ${i} ${'v'.repeat(40)}`));
    let n = 0;
    app.get('/', (req, res) => {
      n++;
      res.setPrepared(block);
      res.set('x-count', String(n));
      if (n === 3) res.set('x-only-third', ['a', 'b']);
      if (n === 4) res.set('x-fixed-5', 'changed in the middle');
      res.json({ n });
    });
    const { port } = await start(app);
    const fixed = block.map((h) => `${h.key}: ${h.value}`);
    const json = 'content-type: application/json; charset=utf-8';
    const expected = [
      [...fixed, 'x-count: 1', json],
      [...fixed, 'x-count: 2', json],
      [...fixed, 'x-count: 3', 'x-only-third: a', 'x-only-third: b', json],
      [...fixed.slice(0, 5), 'x-fixed-5: changed in the middle', ...fixed.slice(6), 'x-count: 4', json],
      [...fixed, 'x-count: 5', json],
    ];
    for (let i = 0; i < expected.length; i++) {
      const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { quietMs: 100 });
      expect(text.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(lines(text), `response ${i + 1}`).toEqual(expected[i]);
      expect(text.endsWith(`\r\n\r\n{"n":${i + 1}}`)).toBe(true);
    }
  });

  it('builds the head anew when less than half of it is shared, and for another status', async () => {
    const app = server();
    let n = 0;
    app.get('/', (req, res) => {
      n++;
      if (n === 1) res.set({ 'x-a': '1', 'x-b': '2', 'x-c': '3', 'x-d': '4' });
      else if (n === 2) res.set({ 'x-a': '1', 'x-z': '9', 'x-y': '8', 'x-x': '7' });
      else res.status(201).set({ 'x-a': '1', 'x-z': '9', 'x-y': '8', 'x-w': '6' });
      res.send('ok');
    });
    const { port } = await start(app);
    const text = 'content-type: text/plain; charset=utf-8';
    const seen: string[][] = [];
    const status: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { quietMs: 100 });
      seen.push(lines(answer.text));
      status.push(answer.text.split('\r\n')[0]!);
    }
    expect(seen).toEqual([
      ['x-a: 1', 'x-b: 2', 'x-c: 3', 'x-d: 4', text],
      ['x-a: 1', 'x-z: 9', 'x-y: 8', 'x-x: 7', text],
      ['x-a: 1', 'x-z: 9', 'x-y: 8', 'x-w: 6', text],
    ]);
    expect(status).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 201 Created']);
  });
});
