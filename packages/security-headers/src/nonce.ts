/**
 * CSP nonces: 16 random bytes each, in base64 (24 characters), cut from a pool of 4 KiB that is
 * filled by the system's CSPRNG once per 256 nonces. One `randomFillSync` per 256 requests costs
 * less than a `randomBytes(16)` per request (each a call into C++ and a new Buffer). Every byte of
 * the pool goes into one nonce only.
 */
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';

/** Random bytes per nonce: 128 bits, what CSP Level 3 asks for at least. */
const NONCE_BYTES = 16;
const POOL_BYTES = 4096;

// Its own memory (not a slice of Node's shared pool), so no other code ever reads these bytes.
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let offset = POOL_BYTES;

/** @internal A fresh nonce: 16 random bytes in base64 (24 characters, `==` at the end). */
export function nextNonce(): string {
  if (offset === POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset = start + NONCE_BYTES;
  return pool.toString('base64', start, offset);
}
