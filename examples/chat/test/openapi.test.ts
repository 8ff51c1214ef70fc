/**
 * The chat's HTTP routes documented by @velox/openapi: the document at /openapi.json passes a real
 * OpenAPI 3.1 validator (the one @velox/openapi's own tests use) and lists the chat's operations
 * with their summaries, tags and the cookie session; the docs page at /docs renders them in
 * Debian's chromium under the chat's Content-Security-Policy (helmet's default set), fetches
 * nothing from another host, and its "Try it out" calls the API with the signed-in user's cookie.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Server } from '@velox/core';
import type { OpenApiDocument } from '@velox/openapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import createChat from '../app.ts';
import { launch } from './browser.ts';

let app: Server;
let base: string;
let uploads: string;
let browser: Browser;

beforeAll(async () => {
  uploads = await mkdtemp(join(tmpdir(), 'chat-openapi-'));
  app = await createChat({ secret: 'c'.repeat(40), uploadsDir: uploads, redisUrl: '' });
  const { port } = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  browser = await launch();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close({ timeout: 1000 });
  await rm(uploads, { recursive: true, force: true });
});

describe('examples/chat: the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document listing every HTTP route of the chat, with summaries and tags', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as OpenApiDocument;
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.info.title).toBe('Velox chat');

    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.map((o) => o.name).sort()).toEqual([
      'GET /api/me',
      'GET /api/rooms',
      'GET /api/rooms/{room}/messages',
      'GET /avatars/{file}',
      'POST /api/avatar',
      'POST /api/rooms/{room}/messages',
      'POST /login',
      'POST /logout',
    ]);
    for (const { name, op } of operations) {
      expect(op.summary, name).toBeTruthy();
      expect(op.tags?.length, name).toBe(1);
      // The API needs the session cookie; the page's form posts and the avatars do not.
      expect(op.security ?? [], name).toEqual(name.includes(' /api/') ? [{ session: [] }] : []);
      if (name.includes(' /api/')) expect(Object.keys(op.responses), name).toContain('401');
    }
    expect(doc.components?.securitySchemes).toEqual({ session: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sid' }) });

    // What validate() and the response schemas give.
    const get = (path: string, method: string) => operations.find((o) => o.name === `${method} ${path}`)!.op;
    const history = get('/api/rooms/{room}/messages', 'GET');
    expect(history.parameters?.map((p) => `${p.in} ${p.name}${p.required ? '' : '?'}`)).toEqual(['path room', 'query limit?', 'query before?']);
    expect(history.parameters?.[0]?.schema).toMatchObject({ enum: ['lobby', 'random', 'velox'] });
    expect(history.responses['200']?.content?.['application/json']?.schema).toMatchObject({ properties: { messages: { items: { $ref: '#/components/schemas/Message' } } } });
    const post = get('/api/rooms/{room}/messages', 'POST');
    expect(post.requestBody?.content['application/json']?.schema).toMatchObject({ properties: { text: { minLength: 1, maxLength: 1000 } } });
    expect(Object.keys(post.responses)).toEqual(['201', '400', '401', '429']);
    expect(Object.keys(get('/login', 'POST').responses)).toEqual(['303']);
  });
});

describe('examples/chat: the docs page in chromium', () => {
  it('renders the operations under the chat CSP, fetches only from the app, and tries GET /api/rooms with the session', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    // Violations of the Content-Security-Policy, as the page sees them (an init script is run by
    // the browser itself, outside the page's policy), and what the console says.
    await context.addInitScript(() => {
      (window as any).violations = [];
      document.addEventListener('securitypolicyviolation', (e) => (window as any).violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const requests: string[] = [];
    const consoleErrors: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    context.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(message.text());
    });

    // Sign in through the chat page, as a user would, then open the docs in the same browser.
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('#name', 'doc');
    await page.click('#signin-form button');
    await page.waitForSelector('#chat:not([hidden])');
    expect((await context.cookies()).map((c) => c.name)).toContain('sid'); // the cookie the security scheme names
    // From here on, only what the docs page does (the chat page logs its own 401 before sign-in).
    requests.length = 0;
    consoleErrors.length = 0;

    const docs = await page.goto(`${base}/docs`);
    expect(docs?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('.opblock-summary');
    expect(await page.textContent('.info .title')).toContain('Velox chat');
    const summaries = await page.$$eval('.opblock-summary', (nodes) => nodes.map((n) => n.textContent?.replace(/\s+/g, ' ').trim() ?? ''));
    for (const [path, summary] of [
      ['/login', 'Sign in'],
      ['/api/me', 'Who is signed in'],
      ['/api/rooms', 'The rooms'],
      ['/api/rooms/{room}/messages', 'Post a message'],
      ['/api/avatar', 'Upload an avatar'],
    ]) {
      expect(summaries.some((s) => s.includes(path!) && s.includes(summary!)), `${path} ${summary}`).toBe(true);
    }

    // Try it out: the browser sends the request to the app, with the session cookie.
    const op = '#operations-rooms-getApiRooms';
    await page.click(`${op} .opblock-summary`);
    await page.click(`${op} .try-out__btn`);
    await page.click(`${op} .execute`);
    await page.waitForSelector(`${op} .live-responses-table tbody .response-col_status`);
    expect((await page.textContent(`${op} .live-responses-table tbody .response-col_status`))?.trim()).toBe('200');
    expect(await page.textContent(`${op} .live-responses-table tbody .response-col_description`)).toContain('lobby');

    expect(await page.evaluate(() => (window as any).violations)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(requests).toContain(`${base}/openapi.json`);
    expect(requests).toContain(`${base}/api/rooms`);
    for (const url of requests) expect(url.startsWith(`${base}/`) || url.startsWith('data:'), url).toBe(true);

    // The check above can fail: an inline script, which the policy refuses, is seen and logged.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.ran = true';
      document.body.append(script);
    });
    await page.waitForFunction(() => (window as any).violations.length > 0);
    expect(await page.evaluate(() => [(window as any).ran, (window as any).violations])).toEqual([undefined, ['script-src-elem inline']]);
    await context.close();
  });
});
