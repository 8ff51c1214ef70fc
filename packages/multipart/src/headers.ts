/**
 * A part's header block, read strictly: `Name: value` lines (RFC 7578, RFC 5322 syntax), and the
 * parameters of Content-Type and Content-Disposition (RFC 7231 §3.1.1.1, RFC 6266, RFC 8187).
 * Header text arrives as latin1 (one char per byte); values that may hold UTF-8 are re-decoded.
 */
import { Buffer } from 'node:buffer';

/** Header lines of one part: lower-case names, each with its values in order. No prototype: names come from the client. */
export type PartHeaders = Record<string, string[]>;

/** Why a header block was refused. */
export type HeaderFault = { fault: 'malformed'; reason: string } | { fault: 'pairs' };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Parses a header block: `block` is what follows the boundary up to (not including) the empty
 * line, the first line being the boundary line's rest (transport padding: spaces or tabs only).
 */
export function parseHeaderBlock(block: string, maxPairs: number): PartHeaders | HeaderFault {
  const lines = block.split('\r\n');
  const padding = lines[0]!;
  for (let i = 0; i < padding.length; i++) {
    const c = padding.charCodeAt(i);
    if (c !== 32 && c !== 9) return malformed('the boundary line has text after the boundary');
  }
  const headers: PartHeaders = Object.create(null);
  let pairs = 0;
  let last: string[] | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!safeText(line)) return malformed('a header line holds a control character or a bare CR or LF');
    const first = line.charCodeAt(0);
    if (first === 32 || first === 9) {
      // obs-fold: a continuation of the line before.
      if (!last) return malformed('the first header line starts with whitespace');
      last[last.length - 1] = `${last[last.length - 1]} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) return malformed('a header line has no name and colon');
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return malformed('a header name holds a character that is not allowed');
    if (++pairs > maxPairs) return { fault: 'pairs' };
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    last = headers[key] ??= [];
    last.push(value);
  }
  return headers;
}

function malformed(reason: string): HeaderFault {
  return { fault: 'malformed', reason };
}

/** True when `text` holds no control character but tab (so no CR or LF either). Bytes 128-255 are fine. */
function safeText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return false;
  }
  return true;
}

/** A header value with parameters: `form-data; name="a"; filename*=UTF-8''b`. */
export interface ParamValue {
  /** The value before the parameters, lower-case (`form-data`, `image/png`). */
  type: string;
  /** Parameters by lower-case name; the first of a repeated name wins. No prototype. */
  params: Record<string, string>;
}

/**
 * Splits a header value into its type and parameters. Parameter values are tokens or quoted
 * strings; inside quotes a backslash escapes `"` and `\` only, and is kept before anything else
 * (old browsers send Windows paths unescaped). Returns undefined for a value it cannot read.
 */
export function parseParams(value: string): ParamValue | undefined {
  let i = value.indexOf(';');
  const type = (i < 0 ? value : value.slice(0, i)).trim().toLowerCase();
  const params: Record<string, string> = Object.create(null);
  if (i < 0) return { type, params };
  const length = value.length;
  while (i < length) {
    // At a ';': skip it and whitespace.
    i++;
    while (i < length && (value[i] === ' ' || value[i] === '\t')) i++;
    if (i >= length) break;
    if (value[i] === ';') continue;
    const eq = value.indexOf('=', i);
    if (eq < 0) return undefined;
    const name = value.slice(i, eq).trim().toLowerCase();
    if (!TOKEN.test(name)) return undefined;
    i = eq + 1;
    while (i < length && (value[i] === ' ' || value[i] === '\t')) i++;
    let text = '';
    if (value[i] === '"') {
      i++;
      let closed = false;
      while (i < length) {
        const c = value[i]!;
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        if (c === '\\' && i + 1 < length && (value[i + 1] === '"' || value[i + 1] === '\\')) {
          text += value[i + 1];
          i += 2;
          continue;
        }
        text += c;
        i++;
      }
      if (!closed) return undefined;
      while (i < length && (value[i] === ' ' || value[i] === '\t')) i++;
      if (i < length && value[i] !== ';') return undefined;
    } else {
      const end = value.indexOf(';', i);
      text = (end < 0 ? value.slice(i) : value.slice(i, end)).trim();
      i = end < 0 ? length : end;
    }
    if (!(name in params)) params[name] = text;
  }
  return { type, params };
}

/**
 * Decodes header text that arrived as latin1 (one char per byte) as UTF-8, which browsers send;
 * bytes that are not valid UTF-8 are read as latin1, as older clients mean them.
 */
export function fromHeaderText(text: string): string {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text;
  try {
    return strictUtf8.decode(Buffer.from(text, 'latin1'));
  } catch {
    return text;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes an RFC 8187 extended value (`filename*=UTF-8''%E2%82%AC%20rates.txt`). Only UTF-8 and
 * ISO-8859-1 are read, as RFC 8187 requires of recipients; anything else or a malformed value
 * gives undefined (the plain parameter is used then).
 */
export function decodeExtValue(value: string): string | undefined {
  const first = value.indexOf("'");
  const second = first < 0 ? -1 : value.indexOf("'", first + 1);
  if (second < 0) return undefined;
  const charset = value.slice(0, first).toLowerCase();
  const encoded = value.slice(second + 1);
  if (!/^(?:[!#$&+\-.^_`|~0-9A-Za-z]|%[0-9A-Fa-f]{2})*$/.test(encoded)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === '%') {
      bytes.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(encoded.charCodeAt(i));
  }
  if (charset === 'utf-8') {
    try {
      return strictUtf8.decode(Uint8Array.from(bytes));
    } catch {
      return undefined;
    }
  }
  if (charset === 'iso-8859-1') return Buffer.from(bytes).toString('latin1');
  return undefined;
}
