/**
 * The chat's production stack over real sockets: security headers, CORS for another front end,
 * compression and the message route's rate limit, together on one answer. Each header arrives
 * once (read from Node's raw header lines), a refusal by the rate limit still carries the CORS
 * and security headers, and a compressed answer decodes to the same JSON.
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Server } from '@velox/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import createChat from '../app.ts';

const FRONT = 'https://m.chat.example';
let app: Server;
let port: number;
let uploads: string;

beforeAll(async () => {
  uploads = await mkdtemp(join(tmpdir(), 'chat-stack-'));
  app = await createChat({ secret: 'b'.repeat(40), uploadsDir: uploads, redisUrl: '', corsOrigins: [FRONT], messageLimit: 3 });
  ({ port } = await app.listen(0, '127.0.0.1'));
});

afterAll(async () => {
  await app?.close({ timeout: 1000 });
  await rm(uploads, { recursive: true, force: true });
});

interface Answer {
  status: number;
  /** Raw header lines: name (lower-case), value, … */
  lines: string[];
  body: Buffer;
}

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          lines: res.rawHeaders.map((v, i) => (i % 2 === 0 ? v.toLowerCase() : v)),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every value of a header, by lower-case name. */
function all(answer: Answer, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < answer.lines.length; i += 2) if (answer.lines[i] === name) out.push(answer.lines[i + 1]!);
  return out;
}

/** The one value of a header that must arrive exactly once. */
function once(answer: Answer, name: string): string {
  const values = all(answer, name);
  expect(values, name).toHaveLength(1);
  return values[0]!;
}

async function signIn(name: string): Promise<string> {
  const answer = await send('POST', '/login', { 'content-type': 'application/x-www-form-urlencoded' }, `name=${name}`);
  expect(answer.status).toBe(303);
  return all(answer, 'set-cookie')
    .map((c) => c.split(';')[0])
    .join('; ');
}

function expectSecurityHeaders(answer: Answer): void {
  expect(once(answer, 'content-security-policy')).toContain("default-src 'self'");
  expect(once(answer, 'x-content-type-options')).toBe('nosniff');
  expect(once(answer, 'strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  expect(once(answer, 'x-frame-options')).toBe('SAMEORIGIN');
}

function expectCors(answer: Answer): void {
  expect(once(answer, 'access-control-allow-origin')).toBe(FRONT);
  expect(once(answer, 'access-control-allow-credentials')).toBe('true');
}

describe('the chat in production dress', () => {
  it('answers a preflight from the other front end for the message route', async () => {
    const answer = await send('OPTIONS', '/api/rooms/lobby/messages', {
      origin: FRONT,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(answer.status).toBe(204);
    expectCors(answer);
    expect(once(answer, 'access-control-allow-methods')).toContain('POST');
    expect(once(answer, 'access-control-allow-headers')).toBe('content-type');
    expect(once(answer, 'access-control-max-age')).toBe('600');
  });

  it('gives an origin it does not know no CORS header, and the normal answer', async () => {
    const cookie = await signIn('stranger');
    const answer = await send('GET', '/api/rooms', { origin: 'https://evil.example', cookie });
    expect(answer.status).toBe(200);
    expect(all(answer, 'access-control-allow-origin')).toEqual([]);
    expect(all(answer, 'vary').join(',')).toMatch(/origin/i);
    expectSecurityHeaders(answer);
  });

  it('posts messages with every header once, then refuses the fourth with 429, readable by the front end', async () => {
    const cookie = await signIn('ada');
    const post = (text: string) =>
      send(
        'POST',
        '/api/rooms/velox/messages',
        { origin: FRONT, cookie, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        JSON.stringify({ text }),
      );
    for (let i = 1; i <= 3; i++) {
      const answer = await post(`message ${i} ${'x'.repeat(990)}`);
      expect(answer.status).toBe(201);
      expectCors(answer);
      expectSecurityHeaders(answer);
      expect(once(answer, 'ratelimit-policy')).toBe('"messages";q=3;w=10');
      expect(once(answer, 'ratelimit')).toMatch(new RegExp(`^"messages";r=${3 - i};t=\\d+$`));
      // Over 1 KB of JSON: compressed, with its exact length.
      expect(once(answer, 'content-encoding')).toBe('gzip');
      expect(Number(once(answer, 'content-length'))).toBe(answer.body.length);
      expect(JSON.parse(gunzipSync(answer.body).toString()).message.text).toBe(`message ${i} ${'x'.repeat(990)}`);
      const vary = all(answer, 'vary').join(', ').toLowerCase();
      expect(vary.split(/\s*,\s*/).filter((v) => v === 'accept-encoding')).toHaveLength(1);
      expect(vary.split(/\s*,\s*/).filter((v) => v === 'origin')).toHaveLength(1);
    }
    const refused = await post('one too many');
    expect(refused.status).toBe(429);
    expectCors(refused);
    expectSecurityHeaders(refused);
    expect(once(refused, 'ratelimit')).toMatch(/^"messages";r=0;t=\d+$/);
    expect(Number(once(refused, 'retry-after'))).toBeGreaterThanOrEqual(1);
    const body = JSON.parse((all(refused, 'content-encoding')[0] === 'gzip' ? gunzipSync(refused.body) : refused.body).toString());
    expect(body.code).toBe('VELOX_ERR_RATE_LIMITED');
    // Another user has a count of their own.
    const other = await send(
      'POST',
      '/api/rooms/velox/messages',
      { origin: FRONT, cookie: await signIn('grace'), 'content-type': 'application/json' },
      JSON.stringify({ text: 'hi' }),
    );
    expect(other.status).toBe(201);
  });

  it('compresses the message list by the client\'s Accept-Encoding and leaves the page\'s precompressed files alone', async () => {
    const cookie = await signIn('lin');
    const plain = await send('GET', '/api/rooms/velox/messages?limit=100', { cookie });
    const zipped = await send('GET', '/api/rooms/velox/messages?limit=100', { cookie, 'accept-encoding': 'gzip' });
    expect(all(plain, 'content-encoding')).toEqual([]);
    expect(once(zipped, 'content-encoding')).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    const page = await send('GET', '/app.js', { 'accept-encoding': 'br, gzip' });
    expect(page.status).toBe(200);
    expect(once(page, 'content-encoding')).toBe('br');
    expectSecurityHeaders(page);
  });
});
