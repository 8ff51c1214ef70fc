// What every server of the stack suite shares: the two routes' answers, the stack's settings and
// the scenario names. Plain JavaScript with no Node-only import, so that the Hono server on Bun
// loads it too.

/** The one origin the CORS middlewares allow, with credentials. */
export const ORIGIN = 'https://app.example.com';

/** A rate limit that is never reached: per client address, in memory. */
export const RATE_LIMIT = 1_000_000_000;
export const WINDOW_MS = 60_000;

/** Bodies of at least this many bytes are compressed (every middleware's default). */
export const THRESHOLD = 1024;

/** The scenarios every server implements, all with the same two routes. */
export const SCENARIOS = ['small', 'list', 'list-br', 'list-zstd'];

/** The answer of GET /api/users/:id: 72 bytes of JSON for a two-digit id, under the threshold. */
export function user(id) {
  return { id: Number(id), name: 'Ada Lovelace', email: 'ada@example.com', role: 'admin' };
}

const ITEMS = Array.from({ length: 18 }, (_, i) => ({
  id: 1000 + i,
  sku: `SKU-${String(4200 + i * 7).padStart(6, '0')}`,
  name: `Product number ${i + 1}`,
  price: Math.round((9.99 + i * 3.5) * 100) / 100,
  tags: ['stock', i % 2 ? 'blue' : 'red'],
  inStock: i % 3 !== 0,
}));

let served = 0;

/**
 * The answer of GET /api/list: about 2 KB of JSON, different on every request (a counter and the
 * time), so no cache of compressed bytes can answer it. Serialized by each framework.
 */
export function list() {
  served += 1;
  return { page: 1, served, at: new Date().toISOString(), total: ITEMS.length, items: ITEMS };
}

/** The `scenarios` object of lib/server-kit.mjs: every scenario adds the same routes. */
export function stackScenarios(addRoutes) {
  return Object.fromEntries(SCENARIOS.map((name) => [name, addRoutes]));
}
