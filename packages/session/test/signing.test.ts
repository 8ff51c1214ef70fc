import { sign } from 'cookie-signature';
import { describe, expect, it } from 'vitest';
import { newId, signer } from '../src/signing.ts';
import { OLD_SECRET, SECRET } from './helpers.ts';

describe('session ids', () => {
  it('are 128 random bits in base64url, never repeated', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newId();
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
      ids.add(id);
    }
    expect(ids.size).toBe(20_000);
  });
});

describe('signer', () => {
  const s = signer([SECRET, OLD_SECRET]);
  const id = newId();

  it('verifies its own values, and says which secret did', () => {
    expect(s.verify(s.sign(id))).toEqual({ id, secret: 0 });
    expect(s.verify(sign(id, OLD_SECRET))).toEqual({ id, secret: 1 });
    // Again, from what it remembers: the same answers.
    expect(s.verify(s.sign(id))).toEqual({ id, secret: 0 });
    expect(s.verify(sign(id, OLD_SECRET))).toEqual({ id, secret: 1 });
  });

  it('refuses values of another secret, of the wrong shape, or with an id it would not issue', () => {
    const good = s.sign(id);
    expect(s.verify(sign(id, 'another-secret-entirely-that-is-long-enough'))).toBeUndefined();
    expect(s.verify(good.slice(0, -1))).toBeUndefined();
    expect(s.verify(`${good}=`)).toBeUndefined();
    // A different first character (the random id may itself start with any one).
    expect(s.verify(`${good.startsWith('x') ? 'y' : 'x'}${good.slice(1)}`)).toBeUndefined();
    expect(s.verify('')).toBeUndefined();
    // Well signed, right length, but not an id of ours (a dot inside): refused.
    const odd = 'a.cdefghijklmnopqrstuv';
    expect(s.verify(sign(odd, SECRET))).toBeUndefined();
  });

  it('still refuses a tampered value after remembering many good ones', () => {
    for (let i = 0; i < 10_050; i++) s.verify(s.sign(newId()));
    const good = s.sign(id);
    expect(s.verify(good)).toEqual({ id, secret: 0 });
    expect(s.verify(`${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
  });
});
