import { listen } from '@velox/test-utils';
import cors from 'cors';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('cors', () => {
  it('allows the configured origin, answers preflights with 204, and varies on Origin', async () => {
    const app = server();
    app.use(cors({ origin: ['https://app.example'], credentials: true, methods: ['GET', 'PUT'], maxAge: 600 }));
    app.put('/items/:id', (req, res) => res.json({ id: req.params.id }));
    const url = await listen(app);
    const preflight = await fetch(`${url}/items/1`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-token' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET,PUT');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-token');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    const put = await fetch(`${url}/items/7`, { method: 'PUT', headers: { origin: 'https://app.example' } });
    expect([put.headers.get('access-control-allow-origin'), put.headers.get('vary'), await put.json()]).toEqual([
      'https://app.example',
      'Origin',
      { id: '7' },
    ]);
    const other = await fetch(`${url}/items/7`, { method: 'PUT', headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
