import { describe, expect, it } from 'vitest';
import type { Coding } from '../src/index.ts';
import { CACHE_SIZE, IDENTITY_REFUSED, INDEX, MAX_ENTRIES, MAX_HEADER_SCAN, Negotiator, NONE, parseAcceptEncoding } from '../src/negotiate.ts';
import { app, getWith, HAS_ZSTD, text } from './helpers.ts';

const ALL: Coding[] = ['br', 'zstd', 'gzip', 'deflate'];
const BIG = text(3000);

/** The coding chosen for `header` among `codings` (ALL by default), or 'none'; with '+refused' when identity is refused. */
function pick(header: string, codings: Coding[] = ALL): string {
  const choice = parseAcceptEncoding(header, codings);
  const index = choice & INDEX;
  const name = index === NONE ? 'none' : codings[index]!;
  return choice & IDENTITY_REFUSED ? `${name}+refused` : name;
}

describe('Accept-Encoding negotiation (the parser)', () => {
  it('takes the highest q-value', () => {
    expect(pick('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(pick('br;q=0.2, deflate;q=0.9, gzip;q=0.8')).toBe('deflate');
    expect(pick('gzip;q=0.001')).toBe('gzip');
  });

  it('breaks a tie in the order br, zstd, gzip, deflate, whatever the order in the header', () => {
    expect(pick('gzip, deflate, br, zstd')).toBe('br');
    expect(pick('deflate, gzip')).toBe('gzip');
    expect(pick('deflate, zstd, gzip')).toBe('zstd');
    expect(pick('gzip;q=0.5, br;q=0.5')).toBe('br');
  });

  it('breaks a tie in the order of the encodings option instead when given', () => {
    expect(pick('br, gzip', ['gzip', 'br'])).toBe('gzip');
    expect(pick('br;q=0.9, gzip;q=0.8', ['gzip', 'br'])).toBe('br');
  });

  it('lets * stand for every allowed coding the header does not name', () => {
    expect(pick('*')).toBe('br');
    expect(pick('br;q=0, *')).toBe('zstd');
    expect(pick('br;q=0, *', ['br', 'gzip'])).toBe('gzip');
    expect(pick('*;q=0.5, gzip')).toBe('gzip');
    expect(pick('*;q=0.5, gzip;q=0.1')).toBe('br');
  });

  it('refuses a coding given q=0, and reads x-gzip as gzip and names in any case', () => {
    expect(pick('gzip;q=0')).toBe('none');
    expect(pick('gzip;q=0, deflate')).toBe('deflate');
    expect(pick('x-gzip')).toBe('gzip');
    expect(pick('GZIP;Q=0.5, Br;q=0.4')).toBe('gzip');
  });

  it('flags identity;q=0 and *;q=0 (without an identity entry) as refusing an uncompressed body', () => {
    expect(pick('gzip, identity;q=0')).toBe('gzip+refused');
    expect(pick('gzip, *;q=0')).toBe('gzip+refused');
    expect(pick('gzip, *;q=0, identity')).toBe('gzip');
    expect(pick('identity;q=0')).toBe('none+refused');
  });

  it('prefers identity only when it is named with a higher q than the best coding', () => {
    expect(pick('gzip;q=0.5, identity')).toBe('none');
    expect(pick('gzip;q=0.5, identity;q=0.5')).toBe('gzip');
    expect(pick('gzip;q=0.5')).toBe('gzip');
    expect(pick('identity')).toBe('none');
  });

  it('ignores an entry whose q is above 1 (q=2)', () => {
    expect(pick('gzip;q=2')).toBe('none');
    expect(pick('br;q=2, gzip;q=0.5')).toBe('gzip');
  });

  it('ignores an entry whose q is negative (q=-1)', () => {
    expect(pick('gzip;q=-1')).toBe('none');
    expect(pick('br;q=-1, deflate')).toBe('deflate');
  });

  it('ignores an entry whose q is not a number (q=abc, q=, q=1e0, q=0x1)', () => {
    for (const q of ['abc', '', '1e0', '0x1', '.5', 'NaN', 'Infinity']) expect(pick(`gzip;q=${q}`)).toBe('none');
    expect(pick('gzip;q=abc, deflate')).toBe('deflate');
    // More than three decimals is tolerated.
    expect(pick('gzip;q=0.5000')).toBe('gzip');
  });

  it('reads garbage as nothing acceptable, without throwing', () => {
    for (const header of [',,,;;;===', '\u0000\u0001', 'gzip;;;q', ';q=1', 'q=1', '"gzip"', 'gzip br', ' , , gzip;q=0.1 ;; , ']) {
      expect(() => parseAcceptEncoding(header, ALL)).not.toThrow();
    }
    expect(pick(',,,;;;===')).toBe('none');
    expect(pick('gzip br')).toBe('none');
    expect(pick(' , , gzip;q=0.1 ;; , ')).toBe('gzip');
    expect(pick('gzip;level=1;q=0.5, deflate;q=0.4')).toBe('gzip');
  });

  it(`looks at ${MAX_HEADER_SCAN} characters of a header at most (10 KB: what comes after is ignored)`, () => {
    const padding = `${'unknown-coding;q=0.5, '.repeat(Math.ceil(10_000 / 22))}`;
    expect(padding.length).toBeGreaterThan(10_000);
    expect(pick(`${padding}gzip`)).toBe('none');
    expect(pick(`deflate, ${padding}gzip`)).toBe('deflate');
  });

  it(`looks at ${MAX_ENTRIES} entries at most (1,000 entries: what comes after is ignored)`, () => {
    const many = Array.from({ length: 1000 }, () => 'x').join(',');
    expect(pick(`${many},gzip`)).toBe('none');
    expect(pick(`gzip,${many}`)).toBe('gzip');
  });

  it(`remembers ${CACHE_SIZE} distinct headers at most, and none longer than ${MAX_HEADER_SCAN} characters`, () => {
    const negotiator = new Negotiator(ALL);
    for (let i = 0; i < 1000; i++) negotiator.choose(`gzip;q=0.${i % 10}, x-${i}`);
    expect(negotiator.size).toBe(CACHE_SIZE);
    // Still right after evictions.
    expect(negotiator.choose('deflate, gzip;q=0.5') & INDEX).toBe(3);
    expect(negotiator.choose('deflate, gzip;q=0.5') & INDEX).toBe(3);
    const fresh = new Negotiator(ALL);
    fresh.choose(`gzip, ${'y'.repeat(MAX_HEADER_SCAN)}`);
    expect(fresh.size).toBe(0);
    expect(fresh.choose('') & INDEX).toBe(NONE);
  });
});

describe('Accept-Encoding negotiation (over sockets)', () => {
  it('answers with the coding of the highest q-value, and br on a tie with gzip', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    expect((await getWith(url, 'gzip, br')).coding).toBe('br');
    expect((await getWith(url, 'gzip;q=1, br;q=0.9')).coding).toBe('gzip');
    expect((await getWith(url, 'deflate;q=0.9, gzip;q=0.8')).coding).toBe('deflate');
    expect((await getWith(url, '*')).coding).toBe('br');
    expect((await getWith(url, 'br;q=0, *;q=0.3')).coding).toBe(HAS_ZSTD ? 'zstd' : 'gzip');
  });

  it('follows the encodings option: only those codings, ties in its order', async () => {
    const url = await app({ encodings: ['gzip', 'deflate'] }, (a) => a.get('/', (req, res) => res.send(BIG)));
    expect((await getWith(url, 'br, deflate, gzip')).coding).toBe('gzip');
    const only = await getWith(url, 'br');
    expect(only.coding).toBeUndefined();
    expect(only.headers.vary).toBe('Accept-Encoding');
  });

  it.skipIf(!HAS_ZSTD)('answers zstd when it has the highest q, and br on a tie with zstd (Node ≥ 22.15)', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    const zstd = await getWith(url, 'zstd');
    expect(zstd.coding).toBe('zstd');
    expect(zstd.text).toBe(BIG);
    expect((await getWith(url, 'zstd, br')).coding).toBe('br');
    expect((await getWith(url, 'zstd;q=1, br;q=0.9, gzip')).coding).toBe('zstd');
  });

  it('compresses a body under the threshold when the client refuses identity (identity;q=0)', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.json({ small: text(100) })));
    const r = await getWith(url, 'gzip, identity;q=0');
    expect(r.coding).toBe('gzip');
    expect(r.headers['content-length']).toBe(String(r.raw.length));
    expect(JSON.parse(r.text)).toEqual({ small: text(100) });
    expect((await getWith(url, 'gzip')).coding).toBeUndefined();
  });

  it('sends the body as it is when nothing acceptable is left, even with identity refused (no 406)', async () => {
    const url = await app({ encodings: ['gzip'] }, (a) => a.get('/', (req, res) => res.send(BIG)));
    const r = await getWith(url, 'br, identity;q=0');
    expect(r.status).toBe(200);
    expect(r.coding).toBeUndefined();
    expect(r.text).toBe(BIG);
  });

  it('answers a request whose Accept-Encoding has q=2 uncompressed and keeps serving', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    const r = await getWith(url, 'gzip;q=2');
    expect(r.status).toBe(200);
    expect(r.coding).toBeUndefined();
    expect((await getWith(url, 'gzip')).coding).toBe('gzip');
  });

  it('answers a request whose Accept-Encoding has q=-1 uncompressed and keeps serving', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    expect((await getWith(url, 'gzip;q=-1')).coding).toBeUndefined();
    expect((await getWith(url, 'gzip;q=-1, deflate')).coding).toBe('deflate');
  });

  it('answers a request whose Accept-Encoding has q=abc uncompressed and keeps serving', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    expect((await getWith(url, 'br;q=abc')).coding).toBeUndefined();
    expect((await getWith(url, 'br;q=abc, gzip;q=0.1')).coding).toBe('gzip');
  });

  it('answers garbage in Accept-Encoding uncompressed, with Vary', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    for (const header of [',,,;;;===', '!!!###', 'gzip br', ';q=1']) {
      const r = await getWith(url, header);
      expect(r.status).toBe(200);
      expect(r.coding).toBeUndefined();
      expect(r.text).toBe(BIG);
      expect(r.headers.vary).toBe('Accept-Encoding');
    }
  });

  it('answers a 10 KB Accept-Encoding and one of 1,000 entries, reading only their start', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    const long = `gzip, ${'unknown-coding;q=0.5, '.repeat(460)}br`;
    expect(long.length).toBeGreaterThan(10_000);
    const r = await getWith(url, long);
    expect(r.status).toBe(200);
    expect(r.coding).toBe('gzip'); // br, at the end, was not read
    expect(r.text).toBe(BIG);
    const many = `${Array.from({ length: 1000 }, (_, i) => `c${i}`).join(', ')}, gzip`;
    const r2 = await getWith(url, many);
    expect(r2.status).toBe(200);
    expect(r2.coding).toBeUndefined();
    expect((await getWith(url, 'deflate')).coding).toBe('deflate');
  });
});
