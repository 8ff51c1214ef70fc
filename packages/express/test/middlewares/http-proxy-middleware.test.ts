import { listen } from '@velox/test-utils';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

/** The upstream: a second Velox server that echoes what it received. */
async function upstream(): Promise<string> {
  const app = server();
  app.any('/*', async (req, res) => {
    const body = await req.text();
    res.set('x-upstream', 'yes').status(req.path.endsWith('/missing') ? 404 : 200).json({
      method: req.method,
      url: req.url,
      host: req.get('host'),
      forwardedFor: req.get('x-forwarded-for') ?? null,
      token: req.get('x-token') ?? null,
      body,
    });
  });
  return listen(app);
}

describe('http-proxy-middleware', () => {
  it('proxies a mounted path to the second server, with method, query, headers, body and status', async () => {
    const target = await upstream();
    const app = server();
    app.use('/api', createProxyMiddleware({ target: `${target}/api`, changeOrigin: true, xfwd: true }));
    app.get('/local', (req, res) => res.send('not proxied'));
    const url = await listen(app);
    const get = await fetch(`${url}/api/users?page=2`, { headers: { 'x-token': 't1' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('x-upstream')).toBe('yes');
    expect(await get.json()).toEqual({
      method: 'GET',
      url: '/api/users?page=2',
      host: new URL(target).host,
      forwardedFor: '127.0.0.1',
      token: 't1',
      body: '',
    });
    const big = 'x'.repeat(200_000);
    const post = await fetch(`${url}/api/upload`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: big });
    const echoed = (await post.json()) as { method: string; body: string };
    expect([echoed.method, echoed.body.length, echoed.body === big]).toEqual(['POST', big.length, true]);
    expect((await fetch(`${url}/api/missing`)).status).toBe(404);
    expect(await (await fetch(`${url}/local`)).text()).toBe('not proxied');
  });

  it('rewrites paths, and answers 504 when the upstream is down', async () => {
    const target = await upstream();
    const down = server();
    const { port: freed } = await down.listen(0, '127.0.0.1');
    await down.close();
    const app = server();
    app.use('/v1', createProxyMiddleware({ target, pathRewrite: { '^/': '/internal/' } }));
    app.use('/down', createProxyMiddleware({ target: `http://127.0.0.1:${freed}` }));
    const url = await listen(app);
    expect(((await (await fetch(`${url}/v1/items?x=1`)).json()) as { url: string }).url).toBe('/internal/items?x=1');
    const failed = await fetch(`${url}/down/anything`);
    expect(failed.status).toBe(504);
    expect(await failed.text()).toMatch(/^Error occurred while trying to proxy: /);
  });
});
