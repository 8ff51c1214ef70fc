// The stack suite (issue 44): the production stack every public API carries (CORS for one origin
// with credentials, security headers at their defaults, a rate limit never reached, a request id,
// compression from 1 KB) on Velox with its own packages (@velox/cors, @velox/security-headers,
// @velox/rate-limit, @velox/compress), on Velox bare, written by hand in one Velox middleware, on
// Velox with the Express middlewares through nodeCompat, and on Fastify, Hono on Bun,
// ultimate-express and Express with their own ecosystems' middlewares. Servers in
// servers/stack/ (see common.mjs for the answers and the stack's settings). See
// benchmarks/README.md, "Suites" and "A production stack (the stack suite)".

import http from 'node:http';
import zlib from 'node:zlib';
import { list, ORIGIN, user } from '../servers/stack/common.mjs';

/** Node ≥ 22.15 / 23.8 compresses zstd; list-zstd runs only there. */
const HAS_ZSTD = typeof zlib.zstdCompressSync === 'function';

const built = ['--conditions=built'];

// Who takes part, with the server each runs. Hono compresses with CompressionStream (gzip and
// deflate only); compression 1.8 (Express, ultimate-express, nodeCompat) has no zstd.
const VELOX = {
  velox: 'stack/velox.mjs',
  'velox-bare': 'stack/velox-bare.mjs',
  'velox-hand': 'stack/velox-hand.mjs',
  'velox-nodecompat': 'stack/velox-nodecompat.mjs',
};
const PEERS = {
  fastify: 'stack/fastify.mjs',
  'hono-bun': 'stack/hono-bun.mjs',
  'ultimate-express': 'stack/ultimate-express.mjs',
  express: 'stack/express.mjs',
};
const ALL = { ...VELOX, ...PEERS };
const BROTLI_SERVERS = Object.fromEntries(Object.entries(ALL).filter(([id]) => id !== 'velox-bare' && id !== 'hono-bun'));
const ZSTD_SERVERS = { velox: VELOX.velox, 'velox-hand': VELOX['velox-hand'], fastify: PEERS.fastify };

const decoders = {
  gzip: zlib.gunzipSync,
  br: zlib.brotliDecompressSync,
  ...(HAS_ZSTD ? { zstd: zlib.zstdDecompressSync } : {}),
};

/** Every request carries these: the allowed origin, and one coding. */
const headersFor = (coding) => ({ origin: ORIGIN, 'accept-encoding': coding });

/** One GET on a fresh connection; the body as raw bytes, every header line as sent. */
function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

/** The body as text, decoded per its Content-Encoding (none: as it came). */
function decoded(answer) {
  const coding = answer.headers['content-encoding'];
  if (coding === undefined) return answer.body.toString('utf8');
  const decode = decoders[coding];
  if (!decode) throw new Error(`content-encoding ${JSON.stringify(coding)} cannot be decoded here`);
  return decode(answer.body).toString('utf8');
}

const listTokens = (value) => (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

// Headers of the stack that must arrive once (Vary may legitimately come as several lines).
const ONCE = ['access-control-allow-origin', 'access-control-allow-credentials', 'content-security-policy', 'x-content-type-options', 'x-request-id', 'content-encoding'];
// Each stack's rate-limit headers: draft-7/8's RateLimit and RateLimit-Policy, draft-6's
// RateLimit-Limit (hono-rate-limiter's default), or the legacy X-RateLimit-* (the others' default).
const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'x-ratelimit-limit'];
// Any of them on an answer means a stack is there; velox-bare must send none.
const STACK_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'content-security-policy', 'x-content-type-options', 'x-request-id', 'content-encoding', ...RATE_LIMIT_HEADERS];

/** Throws, naming the first problem, unless `answer` carries the whole stack. */
function checkStack(answer, what) {
  const h = answer.headers;
  const problems = [];
  if (h['access-control-allow-origin'] !== ORIGIN) problems.push(`access-control-allow-origin ${JSON.stringify(h['access-control-allow-origin'])}, expected ${ORIGIN}`);
  if (h['access-control-allow-credentials'] !== 'true') problems.push(`access-control-allow-credentials ${JSON.stringify(h['access-control-allow-credentials'])}, expected "true"`);
  if (!listTokens(h.vary).includes('origin') && !listTokens(h.vary).includes('*')) problems.push(`vary ${JSON.stringify(h.vary)} does not include Origin`);
  if (!h['content-security-policy']) problems.push('no content-security-policy');
  if (h['x-content-type-options'] !== 'nosniff') problems.push(`x-content-type-options ${JSON.stringify(h['x-content-type-options'])}, expected nosniff`);
  if (!RATE_LIMIT_HEADERS.some((name) => h[name])) problems.push(`no rate-limit header (${RATE_LIMIT_HEADERS.join(', ')})`);
  if (!h['x-request-id']) problems.push('no x-request-id');
  const lines = answer.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  for (const name of ONCE) {
    const count = lines.filter((n) => n === name).length;
    if (count > 1) problems.push(`${name} sent ${count} times`);
  }
  if (problems.length) throw new Error(`${what}: ${problems.join('; ')}`);
}

/**
 * The check of every scenario: two requests, each checked for the whole stack (or, from the
 * bare server, for none of it), the body decoded per its coding and compared. `coding`: what
 * the list must come back compressed with (undefined for small: not compressed).
 * velox-bare is the one server without the stack; every other one is held to it by the
 * extraCheck that requires the CORS and nosniff headers (skipped for velox-bare only), so an
 * answer without any stack header can only come from velox-bare here.
 */
function stackCheck({ path, expectJson, coding }) {
  return async ({ port, headers }) => {
    const answers = [await get(port, path, headers), await get(port, path, headers)];
    const bare = STACK_HEADERS.every((name) => answers[0].headers[name] === undefined);
    const bodies = [];
    for (const [i, answer] of answers.entries()) {
      const what = `GET ${path} (request ${i + 1})`;
      if (answer.status !== 200) throw new Error(`${what}: status ${answer.status}`);
      if (bare) {
        const found = STACK_HEADERS.filter((name) => answer.headers[name] !== undefined);
        if (found.length) throw new Error(`${what}: the first answer had no stack header, this one has ${found.join(', ')}`);
      } else {
        checkStack(answer, what);
        const got = answer.headers['content-encoding'];
        if (coding === undefined && got !== undefined) throw new Error(`${what}: a ${answer.body.length}-byte answer under the threshold came with content-encoding ${got}`);
        if (coding !== undefined && got !== coding) throw new Error(`${what}: content-encoding ${JSON.stringify(got)}, expected ${coding}`);
        if (coding !== undefined && !listTokens(answer.headers.vary).includes('accept-encoding')) throw new Error(`${what}: vary ${JSON.stringify(answer.headers.vary)} does not include Accept-Encoding`);
      }
      let value;
      try {
        value = JSON.parse(decoded(answer));
      } catch (err) {
        throw new Error(`${what}: the body is not JSON after decoding (${err.message})`);
      }
      expectJson(value, what);
      bodies.push(JSON.stringify(value));
    }
    if (!bare && answers[0].headers['x-request-id'] === answers[1].headers['x-request-id']) throw new Error(`GET ${path}: the same x-request-id twice`);
    if (coding !== undefined && bodies[0] === bodies[1]) throw new Error(`GET ${path}: the list did not change between two requests`);
  };
}

const SMALL_USER = JSON.stringify(user('42'));
const LIST_BYTES = JSON.stringify(list()).length;
const listShape = (value, what) => {
  if (!Array.isArray(value?.items) || value.items.length !== 18 || typeof value.served !== 'number' || typeof value.at !== 'string') {
    throw new Error(`${what}: not the list (${JSON.stringify(value).slice(0, 120)})`);
  }
};

/** The CORS and nosniff headers, exact: every server but velox-bare must send them. */
const stackExact = { 'access-control-allow-origin': ORIGIN, 'access-control-allow-credentials': 'true', 'x-content-type-options': 'nosniff' };

function listScenario(name, coding, servers, summary) {
  const headers = headersFor(coding);
  return {
    name,
    summary,
    servers,
    baseline: 'velox-hand',
    request: { method: 'GET', path: '/api/list', headers },
    expect: { status: 200, contentType: 'application/json' },
    extraChecks: [{ request: { method: 'GET', path: '/api/list', headers }, expect: { status: 200, headers: { ...stackExact, 'content-encoding': coding } }, skipFor: ['velox-bare'] }],
    check: stackCheck({ path: '/api/list', expectJson: listShape, coding }),
    extraFigures: ['mbps'],
  };
}

const STACK = 'CORS for one origin with credentials, security headers at their defaults, a rate limit never reached (in memory), a request id, compression from 1 KB';

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'stack',
  title: 'A production stack: CORS, security headers, rate limit, request id, compression',
  frameworks: [
    { id: 'velox-bare', label: 'Velox, no middleware', pkg: '@velox/core', nodeArgs: built },
    { id: 'velox-hand', label: 'Velox, the same headers by hand in one middleware (gzipSync)', pkg: '@velox/core', nodeArgs: built },
    { id: 'velox-nodecompat', label: 'Velox + cors, helmet, express-rate-limit, compression (nodeCompat)', pkg: '@velox/express', nodeArgs: built },
  ],
  scenarios: [
    {
      name: 'small',
      summary: `GET /api/users/:id answers a ${SMALL_USER.length}-byte JSON (under the 1 KB threshold: not compressed), with Origin and Accept-Encoding: gzip on every request, through the stack: ${STACK}.`,
      servers: ALL,
      baseline: 'velox-bare',
      request: { method: 'GET', path: '/api/users/42', headers: headersFor('gzip') },
      expect: { status: 200, json: user('42'), contentType: 'application/json' },
      extraChecks: [
        { request: { method: 'GET', path: '/api/users/7', headers: headersFor('gzip') }, expect: { status: 200, json: user('7'), contentType: 'application/json' } },
        { request: { method: 'GET', path: '/api/users/42', headers: headersFor('gzip') }, expect: { status: 200, headers: stackExact }, skipFor: ['velox-bare'] },
      ],
      check: stackCheck({
        path: '/api/users/42',
        expectJson: (value, what) => {
          if (JSON.stringify(value) !== SMALL_USER) throw new Error(`${what}: body ${JSON.stringify(value)}, expected ${SMALL_USER}`);
        },
        coding: undefined,
      }),
    },
    listScenario(
      'list',
      'gzip',
      ALL,
      `GET /api/list answers a ${LIST_BYTES}-byte JSON that changes on every request (a counter and the time), gzipped at zlib's default level (velox-bare: uncompressed), with Origin and Accept-Encoding: gzip, through the stack: ${STACK}.`,
    ),
    listScenario(
      'list-br',
      'br',
      BROTLI_SERVERS,
      'The list with Accept-Encoding: br, compressed with brotli at quality 4 by every middleware (their default). Hono\'s compress has no br.',
    ),
    ...(HAS_ZSTD
      ? [
          listScenario(
            'list-zstd',
            'zstd',
            ZSTD_SERVERS,
            'The list with Accept-Encoding: zstd, at zstd\'s default level 3 (Node ≥ 22.15 only). compression 1.8 and Hono\'s compress have no zstd.',
          ),
        ]
      : []),
  ],
  // The targets, side by side in one run.
  targets: [
    { label: 'Velox stack ≥ 0.70 × Velox bare (small)', a: ['small', 'velox'], b: ['small', 'velox-bare'], min: 0.7 },
    { label: 'Velox stack ≥ 0.95 × the hand-written stack (list)', a: ['list', 'velox'], b: ['list', 'velox-hand'], min: 0.95 },
    ...['small', 'list'].flatMap((s) => [
      { label: `Velox stack ≥ 1.5 × Fastify (${s})`, a: [s, 'velox'], b: [s, 'fastify'], min: 1.5 },
      { label: `Velox stack ≥ 1.5 × Hono on Bun (${s})`, a: [s, 'velox'], b: [s, 'hono-bun'], min: 1.5 },
    ]),
  ],
  references: [
    { label: 'Velox stack / the hand-written stack (small)', a: ['small', 'velox'], b: ['small', 'velox-hand'] },
    ...['small', 'list'].map((s) => ({ label: `Velox stack / Velox with the Express middlewares (${s})`, a: [s, 'velox'], b: [s, 'velox-nodecompat'] })),
    { label: 'Velox stack / the hand-written stack (list-br)', a: ['list-br', 'velox'], b: ['list-br', 'velox-hand'] },
    { label: 'Velox stack / Fastify (list-br)', a: ['list-br', 'velox'], b: ['list-br', 'fastify'] },
    ...(HAS_ZSTD
      ? [
          { label: 'Velox stack / the hand-written stack (list-zstd)', a: ['list-zstd', 'velox'], b: ['list-zstd', 'velox-hand'] },
          { label: 'Velox stack / Fastify (list-zstd)', a: ['list-zstd', 'velox'], b: ['list-zstd', 'fastify'] },
        ]
      : []),
  ],
  probes: [],
};
