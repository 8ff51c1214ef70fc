import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { parseQueryExtended } from '../../src/app/libs.ts';

/** What Express 4's extended parser (qs, allowPrototypes) answers. */
const viaQs = (text: string) => qs.parse(text, { allowPrototypes: true });

describe("express()'s extended query parser: qs's answer, with short plain queries read without qs", () => {
  it('answers exactly as qs for plain, repeated, bracketed, dotted, escaped and prototype-named keys', () => {
    const cases = [
      'name=x', 'a=1&b=2', 'a=1&a=2', 'a', 'a=', '&&a=1&', 'a=1=2', 'a[b]=1', 'a.b=1', 'a=%20', 'a=b+c',
      '__proto__=x', 'constructor=1', 'toString=2', 'hasOwnProperty=3', 'x=1&constructor=2', 'A-b_9=v', '=v',
      'é=1', 'a=é', 'a=1;b=2', 'a=[1]', 'a=1&b[]=2', 'utf8=%E2%9C%93&a=1', '1=2', '0=a&1=b', `long=${'y'.repeat(300)}`,
    ];
    for (const text of cases) {
      const ours = parseQueryExtended(text);
      expect(ours, text).toEqual(viaQs(text));
      expect(Object.keys(ours), text).toEqual(Object.keys(viaQs(text)));
      expect(Object.getPrototypeOf(ours), text).toBe(Object.getPrototypeOf(viaQs(text)));
    }
  });

  it('agrees with qs on 2,000 queries built at random from keys and values that do and do not take the short path', () => {
    const keys = ['a', 'b', 'id', 'x-y', 'a[b]', 'a.b', 'c%20d', 'constructor', '0', ''];
    const values = ['', '1', 'x', 'a b', 'a+b', '%41', 'é', '=', '[]'];
    let seed = 7;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length]!;
    };
    for (let i = 0; i < 2000; i++) {
      const parts: string[] = [];
      const n = 1 + (i % 4);
      for (let j = 0; j < n; j++) parts.push(pick([0, 1, 2]) === 0 ? pick(keys) : `${pick(keys)}=${pick(values)}`);
      const text = parts.join('&');
      expect(parseQueryExtended(text), text).toEqual(viaQs(text));
    }
  });

  it('answers {} without a query, a new object each time (handlers may add to it)', () => {
    const a = parseQueryExtended(null);
    const b = parseQueryExtended('');
    expect([a, b]).toEqual([{}, {}]);
    expect(a).not.toBe(b);
  });
});
