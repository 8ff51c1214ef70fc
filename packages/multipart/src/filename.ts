/**
 * A client's file name made safe to show and to store as data: a base name, never a path.
 */
import { Buffer } from 'node:buffer';

/** Most UTF-8 bytes kept: what common file systems allow in one name. */
const MAX_BYTES = 255;

/**
 * Characters taken as path separators: `/` and `\`, and the look-alikes that some systems map to
 * them (Windows' "best fit" conversion turns the fullwidth solidus into `/`).
 */
const SEPARATORS = /[/\\\u2044\u2215\u29F8\uFF0F\uFF3C]/;

/**
 * Control characters (C0, DEL, C1), and the invisible and bidirectional controls used to
 * disguise an extension (`evil\u202Etxt.exe` shows as `evilexe.txt`).
 */
function invisible(c: number): boolean {
  return (
    c < 0x20 ||
    (c >= 0x7f && c <= 0x9f) ||
    c === 0x061c ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x2069) ||
    c === 0xfeff
  );
}

function withoutInvisible(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (!invisible(text.charCodeAt(i))) out += text[i];
  return out;
}

/**
 * Reduces a client's file name to a safe base name: Unicode NFC, the part after the last path
 * separator, control and bidirectional-control characters removed, surrounding whitespace
 * trimmed, at most 255 UTF-8 bytes (the extension kept), and `''` for `.` and `..`.
 *
 * @example
 * ```ts
 * safeFileName('../../etc/passwd'); // 'passwd'
 * safeFileName('C:\\Users\\me\\cv.pdf'); // 'cv.pdf'
 * ```
 */
export function safeFileName(name: string): string {
  let base = name.normalize('NFC');
  const parts = base.split(SEPARATORS);
  base = withoutInvisible(parts[parts.length - 1]!).trim();
  if (base === '.' || base === '..') return '';
  if (Buffer.byteLength(base) <= MAX_BYTES) return base;
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : '';
  let stem = extension ? base.slice(0, dot) : base;
  const room = MAX_BYTES - Buffer.byteLength(extension);
  // Cut whole characters (code points), never half of a surrogate pair.
  const chars = Array.from(stem);
  let bytes = Buffer.byteLength(stem);
  while (bytes > room) bytes -= Buffer.byteLength(chars.pop()!);
  stem = chars.join('');
  return stem + extension;
}
