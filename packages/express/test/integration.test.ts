import { start } from '@velox/test-utils';
import type { Middleware } from '@velox/core';
import cors from 'cors';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('Express middlewares', () => {
  it('runs cors unmodified, including preflight on a path with no OPTIONS route', async () => {
    const app = server();
    app.use(cors({ origin: 'https://app.example', credentials: true }) as unknown as Middleware);
    app.get('/data', (req, res) => res.json({ ok: true }));
    const { url } = await start(app);
    const r = await fetch(`${url}/data`, { headers: { origin: 'https://app.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    const pre = await fetch(`${url}/data`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
  });

  it('runs helmet unmodified', async () => {
    const app = server();
    app.use(helmet() as unknown as Middleware);
    app.get('/', (req, res) => res.send('safe'));
    const { url } = await start(app);
    const r = await fetch(url);
    expect(await r.text()).toBe('safe');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(r.headers.get('strict-transport-security')).toContain('max-age=');
    expect(r.headers.get('x-powered-by')).toBeNull();
  });
});
