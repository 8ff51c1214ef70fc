import { get, listen } from '@velox/test-utils';
import { validate } from '@velox/validate';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeRoute } from '../src/index.ts';
import { launch } from './browser.ts';
import { documented } from './helpers.ts';

const SCREENSHOT = process.env.OPENAPI_SCREENSHOT ?? '/tmp/openapi-docs.png';

describe('openapi ui: the docs page', () => {
  it('answers at /docs and /docs/ with a page whose every file the app serves itself', async () => {
    const app = await documented({ info: { title: 'Shop <API>', version: '1' } });
    const base = await listen(app);
    for (const path of ['/docs', '/docs/']) {
      const page = await get(`${base}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<title>Shop &#60;API&#62;</title>');
      const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(urls.length).toBe(6);
      for (const url of urls) {
        expect(url).toMatch(/^\/docs\//);
        const file = await get(`${base}${url}`);
        expect(file.status, url).toBe(200);
        expect(file.headers.get('etag')).toBeTruthy();
      }
    }
    const init = await get(`${base}/docs/init.js`);
    expect(init.text).toContain('"url":"/openapi.json"');
    expect(init.text).toContain('"validatorUrl":null');
    const css = await get(`${base}/docs/swagger-ui.css`);
    expect(css.text).not.toMatch(/@import|url\(["']?https?:/); // no web font or stylesheet from another host
  });

  it('is off with ui: false, and serves at another path', async () => {
    const off = await documented({ ui: false });
    const offBase = await listen(off);
    expect((await get(`${offBase}/docs`)).status).toBe(404);
    const other = await documented({ ui: '/api-docs/', path: '/spec.json' });
    const base = await listen(other);
    expect((await get(`${base}/api-docs`)).status).toBe(200);
    expect((await get(`${base}/api-docs/swagger-ui-bundle.js`)).status).toBe(200);
    expect((await get(`${base}/api-docs/init.js`)).text).toContain('"url":"/spec.json"');
  });
});

describe('openapi ui in a real browser (Debian chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders the operations, sends "try it out" requests to the app, and fetches nothing from another host', async () => {
    const app = await documented({ info: { title: 'Shop', version: '1.2.3' }, tags: [{ name: 'items', description: 'Things for sale' }] });
    const Item = z.object({ id: z.number(), name: z.string() }).meta({ id: 'Item' });
    const seen: number[] = [];
    app.get(
      '/items/:id',
      describeRoute({ summary: 'One item', tags: ['items'], operationId: 'getItem' }),
      validate({ params: z.object({ id: z.coerce.number().int() }), response: { 200: Item, 404: z.object({ error: z.string() }) } }),
      (req, res) => {
        seen.push(req.params.id);
        res.json({ id: req.params.id, name: `item ${req.params.id}` });
      },
    );
    app.post('/items', describeRoute({ summary: 'Add an item', tags: ['items'] }), validate({ body: Item.omit({ id: true }) }), (req, res) => res.status(201).json({ id: 1, ...req.body }));
    const base = await listen(app);

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary');
    const summaries = await page.$$eval('.opblock-summary', (nodes) => nodes.map((n) => n.textContent?.replace(/\s+/g, ' ').trim()));
    expect(summaries.some((s) => s?.includes('/items/{id}') && s.includes('One item'))).toBe(true);
    expect(summaries.some((s) => s?.includes('/items') && s.includes('Add an item'))).toBe(true);
    expect(await page.textContent('.info .title')).toContain('Shop');

    // Try it out: GET /items/{id} with id 42.
    await page.click('#operations-items-getItem .opblock-summary');
    await page.click('#operations-items-getItem .try-out__btn');
    await page.fill('#operations-items-getItem input[placeholder="id"]', '42');
    await page.click('#operations-items-getItem .execute');
    await page.waitForSelector('#operations-items-getItem .live-responses-table tbody .response-col_status');
    expect((await page.textContent('#operations-items-getItem .live-responses-table tbody .response-col_status'))?.trim()).toBe('200');
    expect(await page.textContent('#operations-items-getItem .live-responses-table tbody .response-col_description')).toContain('item 42');
    expect(seen).toEqual([42]);
    await page.screenshot({ path: SCREENSHOT, fullPage: false });

    const origin = new URL(base).origin;
    expect(requests.length).toBeGreaterThan(4);
    for (const url of requests) expect(url.startsWith(`${origin}/`) || url.startsWith('data:'), url).toBe(true);
    expect(requests).toContain(`${origin}/openapi.json`);
    await context.close();
  });
});
