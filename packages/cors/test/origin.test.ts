import { describe, expect, it } from 'vitest';
import { APP, call, corsApp, EVIL, OTHER } from './helpers.ts';

describe("origin: '*' (the default)", () => {
  it('answers every origin with Access-Control-Allow-Origin: * and no Vary', async () => {
    const url = await corsApp();
    const r = await call(`${url}/data`, { origin: EVIL });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"ok":true}');
    expect(r.cors).toEqual({ 'access-control-allow-origin': '*' });
    expect(r.vary).toBeNull();
  });

  it('sends * to a request without Origin too (same answer for everyone, so nothing varies)', async () => {
    const url = await corsApp({ exposedHeaders: ['x-total'] });
    const r = await call(`${url}/data`);
    expect(r.cors).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-total' });
    expect(r.vary).toBeNull();
  });

  it('reflects the origin instead of * with credentials: true, and varies on Origin', async () => {
    const url = await corsApp({ origin: '*', credentials: true });
    const r = await call(`${url}/data`, { origin: OTHER });
    expect(r.cors).toEqual({ 'access-control-allow-origin': OTHER, 'access-control-allow-credentials': 'true' });
    expect(r.vary).toBe('Origin');
    const none = await call(`${url}/data`);
    expect(none.cors).toEqual({});
    expect(none.vary).toBe('Origin');
  });
});

describe('origin: a string', () => {
  it('allows that origin only', async () => {
    const url = await corsApp({ origin: APP });
    const ok = await call(`${url}/data`, { origin: APP });
    expect(ok.cors).toEqual({ 'access-control-allow-origin': APP });
    expect(ok.vary).toBe('Origin');
  });

  it('gives another origin no Access-Control-* header at all, and the normal answer', async () => {
    const url = await corsApp({ origin: APP, credentials: true, exposedHeaders: 'x-total', maxAge: 60 });
    const r = await call(`${url}/data`, { origin: OTHER });
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"ok":true}');
    expect(r.cors).toEqual({});
    expect(r.vary).toBe('Origin');
    const post = await call(`${url}/data`, { method: 'POST', origin: OTHER, headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(post.status).toBe(200);
    expect(post.body).toBe('{"posted":true}');
    expect(post.cors).toEqual({});
  });

  it('matches the whole origin, not a prefix or another port or scheme', async () => {
    const url = await corsApp({ origin: APP });
    for (const origin of [`${APP}.evil.example`, `${APP}:8443`, 'http://app.example.com', 'https://app.example.co']) {
      expect((await call(`${url}/data`, { origin })).cors, origin).toEqual({});
    }
  });
});

describe('origin: an array of strings and RegExps', () => {
  const origin = [APP, 'http://localhost:5173', /^https:\/\/[a-z0-9-]+\.trusted\.example$/];

  it('allows each listed origin and each origin a RegExp matches, reflecting it', async () => {
    const url = await corsApp({ origin, credentials: true });
    for (const allowed of [APP, 'http://localhost:5173', 'https://eu.trusted.example', 'https://us-2.trusted.example']) {
      const r = await call(`${url}/data`, { origin: allowed });
      expect(r.cors, allowed).toEqual({ 'access-control-allow-origin': allowed, 'access-control-allow-credentials': 'true' });
      expect(r.vary).toBe('Origin');
    }
  });

  it('refuses the others, and origins a loose reading would let through', async () => {
    const url = await corsApp({ origin, credentials: true });
    for (const refused of [OTHER, 'https://trusted.example', 'https://eu.trusted.example.evil', 'http://eu.trusted.example', 'http://localhost:5174']) {
      const r = await call(`${url}/data`, { origin: refused });
      expect(r.cors, refused).toEqual({});
      expect(r.vary).toBe('Origin');
    }
  });

  it('an empty list allows no origin, and still varies', async () => {
    const url = await corsApp({ origin: [] });
    const r = await call(`${url}/data`, { origin: APP });
    expect(r.cors).toEqual({});
    expect(r.vary).toBe('Origin');
  });
});

describe('origin: a boolean', () => {
  it('true reflects any origin', async () => {
    const url = await corsApp({ origin: true });
    for (const o of [APP, EVIL, 'http://127.0.0.1:8080', 'chrome-extension://abcdefghijklmnop']) {
      const r = await call(`${url}/data`, { origin: o });
      expect(r.cors, o).toEqual({ 'access-control-allow-origin': o });
      expect(r.vary).toBe('Origin');
    }
  });

  it('false turns CORS off: no header, no Vary, preflights go to the app', async () => {
    const url = await corsApp({ origin: false });
    const r = await call(`${url}/data`, { origin: APP });
    expect(r.cors).toEqual({});
    expect(r.vary).toBeNull();
    const pre = await call(`${url}/own-options`, { method: 'OPTIONS', origin: APP, headers: { 'access-control-request-method': 'PUT' } });
    expect(pre.status).toBe(200);
    expect(pre.body).toBe('the app answered');
    expect(pre.cors).toEqual({});
  });
});

describe('exposedHeaders and credentials', () => {
  it('go on answers to allowed origins only', async () => {
    const url = await corsApp({ origin: APP, credentials: true, exposedHeaders: ['X-Total', 'X-Page'] });
    const ok = await call(`${url}/data`, { origin: APP });
    expect(ok.cors).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'X-Total,X-Page',
    });
    expect((await call(`${url}/data`, { origin: OTHER })).cors).toEqual({});
  });

  it('takes exposedHeaders as a comma-separated string too', async () => {
    const url = await corsApp({ exposedHeaders: 'x-a, x-b' });
    expect((await call(`${url}/data`, { origin: APP })).cors['access-control-expose-headers']).toBe('x-a,x-b');
  });
});
