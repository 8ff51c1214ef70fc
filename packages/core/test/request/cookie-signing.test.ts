import { createHmac, createSecretKey } from 'node:crypto';
import { get, listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { signCookieValue, unsignCookieValue } from '../../src/index.ts';
import { server } from '../helpers.ts';

const SECRET = 'a-secret-long-enough-for-the-tests';
const OTHER = 'another-secret-entirely-long-enough';

/** The signature computed here with node:crypto alone: the format the signer must keep. */
function hmac(value: string, secret: string): string {
  return createHmac('sha256', secret).update(value).digest('base64').replace(/=+$/, '');
}

describe('signCookieValue', () => {
  it('appends a dot and the HMAC-SHA256 of the value in base64 without padding', () => {
    expect(signCookieValue('42', SECRET)).toBe(`42.${hmac('42', SECRET)}`);
    expect(signCookieValue('', SECRET)).toBe(`.${hmac('', SECRET)}`);
    expect(signCookieValue('a.b', SECRET)).toBe(`a.b.${hmac('a.b', SECRET)}`);
    expect(signCookieValue('42', SECRET).length).toBe(2 + 1 + 43);
  });

  it('gives the same signature for a KeyObject as for its string', () => {
    const key = createSecretKey(Buffer.from(SECRET, 'utf8'));
    expect(signCookieValue('user-7', key)).toBe(signCookieValue('user-7', SECRET));
  });

  it('throws a TypeError for a value that is not a string or a missing secret', () => {
    expect(() => signCookieValue(42 as never, SECRET)).toThrow(TypeError);
    expect(() => signCookieValue('42', undefined as never)).toThrow(TypeError);
  });
});

describe('unsignCookieValue', () => {
  const signed = signCookieValue('user-7', SECRET);

  it('returns what was signed, for a string secret or its KeyObject', () => {
    expect(unsignCookieValue(signed, SECRET)).toBe('user-7');
    expect(unsignCookieValue(signed, createSecretKey(Buffer.from(SECRET, 'utf8')))).toBe('user-7');
    expect(unsignCookieValue(signCookieValue('a.b', SECRET), SECRET)).toBe('a.b');
  });

  it('returns false for another secret, a tampered value or signature, and no signature', () => {
    expect(unsignCookieValue(signed, OTHER)).toBe(false);
    expect(unsignCookieValue(`user-8${signed.slice(6)}`, SECRET)).toBe(false);
    expect(unsignCookieValue(`${signed.slice(0, -1)}${signed.endsWith('A') ? 'B' : 'A'}`, SECRET)).toBe(false);
    expect(unsignCookieValue(signed.slice(0, -1), SECRET)).toBe(false);
    expect(unsignCookieValue(`${signed}x`, SECRET)).toBe(false);
    expect(unsignCookieValue('user-7', SECRET)).toBe(false);
    expect(unsignCookieValue('', SECRET)).toBe(false);
  });

  it('verifies a value signed with a retired secret when that secret is tried', () => {
    const old = signCookieValue('cart-1', OTHER);
    const secrets = [SECRET, OTHER];
    const found = secrets.map((s) => unsignCookieValue(old, s));
    expect(found).toEqual([false, 'cart-1']);
  });

  it('throws a TypeError for a value that is not a string', () => {
    expect(() => unsignCookieValue(undefined as never, SECRET)).toThrow(TypeError);
  });
});

describe('the signer and signed cookies', () => {
  it('is what res.cookie(…, { signed: true }) sends after "s:", and what req.signedCookies checks', async () => {
    const app = server({ cookieSecret: SECRET });
    app.get('/set', (_req, res) => res.cookie('sid', 'abc', { signed: true }).end());
    app.get('/read', (req, res) => res.json({ sid: req.signedCookies.sid ?? null }));
    const url = await listen(app);

    const set = await get(`${url}/set`);
    const cookie = set.headers.get('set-cookie')!.split(';')[0]!;
    expect(decodeURIComponent(cookie)).toBe(`sid=s:${signCookieValue('abc', SECRET)}`);

    const own = encodeURIComponent(`s:${signCookieValue('made-by-a-plugin', SECRET)}`);
    expect((await get(`${url}/read`, { headers: { cookie: `sid=${own}` } })).json()).toEqual({ sid: 'made-by-a-plugin' });
    const foreign = encodeURIComponent(`s:${signCookieValue('made-by-a-plugin', OTHER)}`);
    expect((await get(`${url}/read`, { headers: { cookie: `sid=${foreign}` } })).json()).toEqual({ sid: false });
  });
});
