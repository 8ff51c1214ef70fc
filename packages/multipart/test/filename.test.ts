import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { safeFileName } from '../src/index.ts';

describe('safeFileName', () => {
  it('keeps the base name of Unix, Windows and look-alike paths', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Windows\\system32\\cmd.exe')).toBe('cmd.exe');
    expect(safeFileName('a\uFF0Fb\uFF3Cc.txt')).toBe('c.txt');
    expect(safeFileName('dir/')).toBe('');
  });

  it('removes control, invisible and bidirectional characters and trims', () => {
    expect(safeFileName(' a\u0000b\u0007c\u009F.txt ')).toBe('abc.txt');
    expect(safeFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(safeFileName('\uFEFFname\u200B.txt')).toBe('name.txt');
  });

  it('answers an empty name for . and ..', () => {
    expect(safeFileName('.')).toBe('');
    expect(safeFileName('..')).toBe('');
    expect(safeFileName('.hidden')).toBe('.hidden');
  });

  it('normalises to NFC', () => {
    expect(safeFileName('e\u0301te\u0301.txt')).toBe('été.txt');
  });

  it('cuts a name to 255 UTF-8 bytes on a character boundary, keeping the extension', () => {
    const name = safeFileName(`${'é'.repeat(300)}.jpeg`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name.endsWith('.jpeg')).toBe(true);
    expect(name).toMatch(/^é+\.jpeg$/);
    const emoji = safeFileName('😀'.repeat(100));
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(255);
    expect(emoji).toMatch(/^(😀)+$/u);
  });
});
