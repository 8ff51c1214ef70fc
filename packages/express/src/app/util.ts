/** Small text helpers Express 4 takes from escape-html and encodeurl. */

const HTML: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };

/** Escapes text for HTML (escape-html). */
export function escapeHtml(text: string): string {
  return String(text).replace(/["&'<>]/g, (c) => HTML[c]!);
}

/** Encodes what a URL may not hold, keeping what is already percent-encoded (encodeurl). */
export function encodeUrl(url: string): string {
  return String(url)
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?![0-9A-Fa-f]{2}))+/g, (text) => encodeURI(text))
    .replace(/(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g, '$1\uFFFD$2');
}

/** A Content-Type with its charset set (content-type's parse and format, for the common cases). */
// By charset, then by type: both strings are usually the same objects from call to call (a
// literal, a header value stored once), so neither lookup hashes a new string.
const charsetCache = new Map<string, Map<string, string>>();

export function setCharset(type: string, charset: string): string {
  let byType = charsetCache.get(charset);
  if (byType === undefined) {
    byType = new Map();
    if (charsetCache.size < 16) charsetCache.set(charset, byType);
  }
  const known = byType.get(type);
  if (known !== undefined) return known;
  const made = withCharset(type, charset);
  if (byType.size < 256) byType.set(type, made);
  return made;
}

function withCharset(type: string, charset: string): string {
  const parts = type.split(';');
  const params = new Map<string, string>();
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!.trim();
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  params.set('charset', charset);
  const names = [...params.keys()].sort();
  return [parts[0]!.trim().toLowerCase(), ...names.map((n) => `${n}=${params.get(n)}`)].join('; ');
}
