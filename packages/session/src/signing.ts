/**
 * Where session ids come from, and how they are signed. A cookie's value is `<id>.<signature>`:
 * the id is 16 random bytes from node:crypto in base64url (22 characters, 128 bits), the
 * signature core's `signCookieValue` (cookie-signature's HMAC-SHA256 in base64 without padding, 43).
 */
import { createSecretKey, type KeyObject, randomFillSync } from 'node:crypto';
import { signCookieValue, unsignCookieValue } from '@velox/core';

const ID_BYTES = 16;
const ID_LENGTH = 22;
const VALUE_LENGTH = ID_LENGTH + 1 + 43;
const ID = /^[A-Za-z0-9_-]{22}$/;

// Ids are cut from a pool of random bytes refilled from the CSPRNG, as node:crypto's randomUUID
// does: one system call per 256 ids instead of one per id.
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

/** A new session id: 128 bits from node:crypto, base64url. */
export function newId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  // Bytes are used once: wipe them, so that no id can be read back from the pool.
  pool.fill(0, offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

/** What a verified cookie holds. */
export interface Verified {
  id: string;
  /** Which secret verified it: 0 is the current one; more means it must be signed again. */
  secret: number;
}

/** Signs ids with the first secret; verifies with each. */
export interface Signer {
  sign(id: string): string;
  verify(value: string): Verified | undefined;
}

/** How many verified cookie values a signer remembers. */
const REMEMBERED = 10_000;

/**
 * A signer for these secrets (the first signs, every one verifies). Values that verified are
 * remembered (up to 10,000, the oldest forgotten first), so a session's later requests skip the
 * HMAC, which is most of what a session costs on a request: a remembered value is one that this
 * signer has verified with these same secrets, so the answer cannot differ. Only exact matches
 * are found, and failures are never remembered.
 */
export function signer(secrets: readonly string[]): Signer {
  const keys: KeyObject[] = secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
  const first = keys[0]!;
  const verified = new Map<string, Verified>();
  return {
    sign: (id) => signCookieValue(id, first),
    verify(value) {
      const known = verified.get(value);
      if (known !== undefined) return known;
      // Shape first: a truncated value, or one with bytes after the signature, is refused
      // without computing a single HMAC.
      if (value.length !== VALUE_LENGTH || value.charCodeAt(ID_LENGTH) !== 46 /* . */) return undefined;
      for (let i = 0; i < keys.length; i++) {
        const id = unsignCookieValue(value, keys[i]!);
        if (id === false) continue;
        if (!ID.test(id)) return undefined;
        const result: Verified = { id, secret: i };
        if (verified.size >= REMEMBERED) verified.delete(verified.keys().next().value!);
        verified.set(value, result);
        return result;
      }
      return undefined;
    },
  };
}
