/**
 * The app's own test, `test/app.test.(ts|js)`: node:test, every request through `app.inject()`
 * (no port, no listen), one test for each chosen package where what it does shows in an answer.
 */
import { lines, type View } from './spec.ts';

/** @internal `test/app.test.ts` or `test/app.test.js`. */
export function testModule(v: View): string {
  const { name } = v.spec;
  const as = (type: string) => v.lang(` as ${type}`);
  const json = (type: string) => (v.ts ? `(await res.json()) as ${type}` : 'await res.json()');

  const blocks: Array<string | false> = [
    block(
      "it('greets by name', async () => {",
      "  const res = await app.inject('/api/hello/ada');",
      '  assert.equal(res.status, 200);',
      "  assert.deepEqual(await res.json(), { message: 'Hello, ada!' });",
      '});',
    ),
    block(
      "it('lists the items', async () => {",
      "  const res = await app.inject('/api/items');",
      '  assert.equal(res.status, 200);',
      `  const items = ${json('Array<{ id: number; name: string }>')};`,
      '  assert.equal(items.length, 100);',
      "  assert.deepEqual(items[0], { id: 1, name: 'Item 1' });",
      '});',
    ),
    v.has('validate') &&
      block(
        "it('refuses a name over 40 characters with 400 and the issue (@velox/validate)', async () => {",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of the app
        "  const res = await app.inject(`/api/hello/${'a'.repeat(41)}`);",
        '  assert.equal(res.status, 400);',
        `  const body = ${json('{ code: string; issues: Array<{ in: string; path: string[] }> }')};`,
        "  assert.equal(body.code, 'VELOX_ERR_VALIDATION');",
        "  assert.deepEqual(body.issues.map((issue) => [issue.in, issue.path]), [['params', ['name']]]);",
        '});',
      ),
    v.has('openapi') &&
      block(
        "it('documents the routes at /openapi.json (@velox/openapi)', async () => {",
        "  const res = await app.inject('/openapi.json');",
        '  assert.equal(res.status, 200);',
        `  const doc = ${json('{ info: { title: string }; paths: Record<string, { get?: { summary?: string } }> }')};`,
        `  assert.equal(doc.info.title, '${name}');`,
        "  assert.equal(doc.paths['/api/hello/{name}']?.get?.summary, 'Greets someone by name');",
        "  assert.equal(doc.paths['/api/items']?.get?.summary, 'Lists the items');",
        "  assert.equal((await app.inject('/docs/')).status, 200);",
        '});',
      ),
    v.has('session') &&
      block(
        "it('counts visits in a cookie session (@velox/session)', async () => {",
        "  const first = await app.inject('/api/visits');",
        '  assert.deepEqual(await first.json(), { visits: 1 });',
        "  const cookie = first.headers.getSetCookie()[0]?.split(';')[0];",
        "  assert.ok(cookie, 'the first answer sets the session cookie');",
        "  const second = await app.inject('/api/visits', { headers: { cookie } });",
        '  assert.deepEqual(await second.json(), { visits: 2 });',
        "  const stranger = await app.inject('/api/visits');",
        '  assert.deepEqual(await stranger.json(), { visits: 1 });',
        '});',
      ),
    v.has('redis') &&
      block(
        "it('counts hits in Redis, or answers 503 while Redis cannot be reached (@velox/redis)', async (t) => {",
        "  const first = await app.inject('/api/hits');",
        '  if (first.status === 503) {',
        "    t.diagnostic('Redis is not reachable at REDIS_URL (default redis://127.0.0.1:6379): checked the 503 only');",
        '    return;',
        '  }',
        '  assert.equal(first.status, 200);',
        `  const { hits } = (await first.json())${as('{ hits: number }')};`,
        "  const second = await app.inject('/api/hits');",
        '  assert.deepEqual(await second.json(), { hits: hits + 1 });',
        '});',
      ),
    v.has('multipart') &&
      block(
        "it('reads a multipart upload (@velox/multipart)', async () => {",
        '  const form = new FormData();',
        "  form.append('title', 'notes');",
        "  form.append('file', new Blob(['hello world'], { type: 'text/plain' }), 'hello.txt');",
        "  const res = await app.inject('/api/upload', { method: 'POST', body: form });",
        '  assert.equal(res.status, 200);',
        '  assert.deepEqual(await res.json(), {',
        "    fields: { title: 'notes' },",
        "    files: [{ field: 'file', name: 'hello.txt', type: 'text/plain', size: 11 }],",
        '  });',
        '});',
      ),
    v.has('static') &&
      block(
        "it('serves public/index.html at / (@velox/static)', async () => {",
        "  const res = await app.inject('/');",
        '  assert.equal(res.status, 200);',
        "  assert.match(res.headers.get('content-type') ?? '', /^text\\/html/);",
        `  assert.match(await res.text(), /<h1>${name.replace(/[/.]/g, '\\$&')}<\\/h1>/);`,
        '});',
      ),
    v.has('cors') &&
      block(
        "it('lets the front end at CORS_ORIGIN read the answers, and no other origin (@velox/cors)', async () => {",
        "  const origin = process.env.CORS_ORIGIN ?? 'http://localhost:5173';",
        "  const allowed = await app.inject('/api/items', { headers: { origin } });",
        "  assert.equal(allowed.headers.get('access-control-allow-origin'), origin);",
        "  const other = await app.inject('/api/items', { headers: { origin: 'https://elsewhere.example' } });",
        "  assert.equal(other.headers.get('access-control-allow-origin'), null);",
        '});',
      ),
    v.has('security-headers') &&
      block(
        "it('sends the security headers (@velox/security-headers)', async () => {",
        "  const res = await app.inject('/api/items');",
        "  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');",
        "  assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');",
        "  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);",
        '});',
      ),
    v.has('rate-limit') &&
      block(
        "it('tells the client its rate limit (@velox/rate-limit)', async () => {",
        "  const res = await app.inject('/api/items');",
        "  assert.match(res.headers.get('ratelimit-policy') ?? '', /;q=100;w=60$/);",
        "  assert.match(res.headers.get('ratelimit') ?? '', /;r=\\d+;t=\\d+$/);",
        '});',
      ),
    v.has('compress') &&
      block(
        "it('compresses a large answer for a client that accepts gzip (@velox/compress)', async () => {",
        "  const plain = await app.inject('/api/items');",
        "  const res = await app.inject('/api/items', { headers: { 'accept-encoding': 'gzip' } });",
        "  assert.equal(res.headers.get('content-encoding'), 'gzip');",
        '  const body = gunzipSync(Buffer.from(await res.arrayBuffer()));',
        '  assert.deepEqual(JSON.parse(body.toString()), await plain.json());',
        '});',
      ),
    // Last: it makes the app listen, on a port of its own.
    v.has('ws') &&
      block(
        "it('echoes WebSocket messages at /ws (@velox/ws)', async () => {",
        "  const { port } = await app.listen(0, '127.0.0.1');",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: generated code, a template literal of the app
        '  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);',
        "  await once(socket, 'open');",
        "  socket.send('ping');",
        "  const [message] = await once(socket, 'message');",
        "  assert.equal(String(message), 'ping');",
        '  socket.close();',
        "  await once(socket, 'close');",
        '});',
      ),
  ];

  return lines(
    "import assert from 'node:assert/strict';",
    v.has('ws') && "import { once } from 'node:events';",
    "import { after, describe, it } from 'node:test';",
    v.has('compress') && "import { gunzipSync } from 'node:zlib';",
    v.has('ws') && "import WebSocket from 'ws';",
    "import { buildApp } from '../src/app.js';",
    '',
    '// No listen(): app.inject() sends each request through the whole app, as a client would.',
    'const app = await buildApp();',
    'after(() => app.close());',
    '',
    `describe('${name}', () => {`,
    blocks
      .filter((b): b is string => typeof b === 'string')
      .join('\n\n'),
    '});',
  );
}

/** The lines of one test, indented under `describe`. */
function block(...text: string[]): string {
  return text.map((line) => `  ${line}`).join('\n');
}
