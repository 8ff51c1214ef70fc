import { describe, expect, it } from 'vitest';
import { decodeExtValue, fromHeaderText, parseHeaderBlock, parseParams } from '../src/headers.ts';

describe('parseParams', () => {
  it('reads tokens and quoted strings, the first of a repeated name winning', () => {
    expect(parseParams('form-data; name="a b"; filename=c.txt; name="again"')).toEqual({
      type: 'form-data',
      params: { name: 'a b', filename: 'c.txt' },
    });
  });

  it('unescapes \\" and \\\\ in quotes and keeps other backslashes (Windows paths)', () => {
    expect(parseParams('form-data; filename="C:\\dir\\a \\"q\\".txt"')?.params.filename).toBe('C:\\dir\\a "q".txt');
  });

  it('gives undefined for an unclosed quote or text after one', () => {
    expect(parseParams('form-data; name="a')).toBeUndefined();
    expect(parseParams('form-data; name="a"b')).toBeUndefined();
    expect(parseParams('form-data; =x')).toBeUndefined();
  });
});

describe('decodeExtValue', () => {
  it('decodes UTF-8 and ISO-8859-1 values and refuses others', () => {
    expect(decodeExtValue("UTF-8''%E2%82%AC%20rates")).toBe('€ rates');
    expect(decodeExtValue("iso-8859-1'en'%A3%20rates")).toBe('£ rates');
    expect(decodeExtValue("koi8-r''%C1")).toBeUndefined();
    expect(decodeExtValue("UTF-8''%FF")).toBeUndefined();
    expect(decodeExtValue("UTF-8''a b")).toBeUndefined();
    expect(decodeExtValue('no-quotes')).toBeUndefined();
  });
});

describe('fromHeaderText', () => {
  it('reads UTF-8 bytes, and keeps latin1 text that is not UTF-8', () => {
    expect(fromHeaderText(Buffer.from('café', 'utf8').toString('latin1'))).toBe('café');
    expect(fromHeaderText(Buffer.from('café', 'latin1').toString('latin1'))).toBe('café');
  });
});

describe('parseHeaderBlock', () => {
  it('parses lines into lower-case names with their values, without a prototype', () => {
    const headers = parseHeaderBlock('\r\nContent-Disposition: form-data; name="a"\r\nX-A: 1\r\nx-a: 2', 16);
    expect(headers).toEqual(Object.assign(Object.create(null), { 'content-disposition': ['form-data; name="a"'], 'x-a': ['1', '2'] }));
    expect(Object.getPrototypeOf(headers)).toBeNull();
  });

  it('refuses more lines than the limit, and malformed lines', () => {
    expect(parseHeaderBlock('\r\nA: 1\r\nB: 2\r\nC: 3', 2)).toEqual({ fault: 'pairs' });
    expect(parseHeaderBlock('\r\nA 1', 2)).toMatchObject({ fault: 'malformed' });
    expect(parseHeaderBlock('\r\n A: 1', 2)).toMatchObject({ fault: 'malformed' });
    expect(parseHeaderBlock('\r\nA\u0000: 1', 2)).toMatchObject({ fault: 'malformed' });
    expect(parseHeaderBlock('x\r\nA: 1', 2)).toMatchObject({ fault: 'malformed' });
  });
});
