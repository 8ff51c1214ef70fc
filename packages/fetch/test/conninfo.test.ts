import { getConnInfo as nodeServerConnInfo } from '@hono/node-server/conninfo';
import { get, raw } from '@velox/test-utils';
import { Hono } from 'hono';
import { ipRestriction } from 'hono/ip-restriction';
import { describe, expect, it } from 'vitest';
import { getConnInfo } from '../src/conninfo.ts';
import { served } from './helpers.ts';

describe('getConnInfo', () => {
  it("gives Hono the client's address, and @hono/node-server's helper reads the same env", async () => {
    const hono = new Hono();
    hono.get('/', (c) => c.json({ ours: getConnInfo(c), nodeServer: nodeServerConnInfo(c) }));
    const { url } = await served(hono.fetch);
    const { ours, nodeServer } = (await get(url)).json();
    expect(ours).toEqual({ remote: { address: '127.0.0.1', addressType: 'IPv4', transport: 'tcp' } });
    expect(nodeServer).toEqual({ remote: { address: '127.0.0.1', addressType: 'IPv4' } });
  });

  it('honours trustProxy: the client the trusted proxy reports', async () => {
    const hono = new Hono().get('/', (c) => c.json(getConnInfo(c)));
    const { port } = await served(hono.fetch, { trustProxy: 'loopback' });
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ remote: { address: '203.0.113.9', addressType: 'IPv4', transport: 'tcp' } });
  });

  it("works with Hono's ipRestriction middleware", async () => {
    const hono = new Hono();
    hono.use('/admin/*', ipRestriction(getConnInfo, { denyList: ['127.0.0.1'] }));
    hono.get('/admin/panel', (c) => c.text('secret'));
    hono.get('/open', (c) => c.text('open'));
    const { url } = await served(hono.fetch);
    expect((await get(`${url}/admin/panel`)).status).toBe(403);
    expect((await get(`${url}/open`)).text).toBe('open');
  });

  it('throws a TypeError without the env of serve() or fetchHandler()', () => {
    expect(() => getConnInfo({ env: {} })).toThrow(TypeError);
  });
});
