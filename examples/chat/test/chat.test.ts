/**
 * The chat in a real browser (Debian's chromium through playwright-core): sign in, talk across
 * two browser contexts, rooms, reload, avatar upload, sign-out closing the other tab's socket,
 * a 400 for an empty message. One server in this process, memory stores.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from '@velox/core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import createChat from '../app.ts';
import { launch } from './browser.ts';

let browser: Browser;
let app: Server;
let base: string;
let uploads: string;

beforeAll(async () => {
  uploads = await mkdtemp(join(tmpdir(), 'chat-test-'));
  app = await createChat({ secret: 'a'.repeat(40), uploadsDir: uploads, redisUrl: '' });
  const { port } = await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${port}`;
  browser = await launch();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close({ timeout: 1000 });
  await rm(uploads, { recursive: true, force: true });
});

/** A new browser context signed in as `name`, on the chat page. */
async function signIn(name: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  const page = await context.newPage();
  await page.goto(base);
  await page.fill('#name', name);
  await page.click('#signin-form button');
  await page.waitForSelector('#chat:not([hidden])');
  await online(page);
  return { context, page };
}

async function online(page: Page): Promise<void> {
  await page.waitForSelector('#status[data-state="open"]');
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill('#text', text);
  await page.click('#send-form button');
}

function messages(page: Page): Promise<string[]> {
  return page.$$eval('#messages .message p', (ps) => ps.map((p) => p.textContent ?? ''));
}

describe('examples/chat in chromium', () => {
  it('delivers a message to another user in the same room, not to other rooms', async () => {
    const ana = await signIn('ana');
    const bob = await signIn('bob');
    const cy = await signIn('cy');
    await cy.page.click('#rooms a[data-room="random"]');
    await online(cy.page);
    await send(ana.page, 'hello bob');
    await bob.page.waitForFunction(() => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === 'hello bob'));
    await ana.page.waitForFunction(() => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === 'hello bob'));
    await send(bob.page, 'hi ana');
    await ana.page.waitForFunction(() => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === 'hi ana'));
    // cy sits in #random: nothing of #lobby arrives there.
    await send(cy.page, 'anyone in random?');
    await cy.page.waitForFunction(() => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === 'anyone in random?'));
    expect(await messages(cy.page)).toEqual(['anyone in random?']);
    expect(await messages(bob.page)).toEqual(['hello bob', 'hi ana']);
    // What a user sees: the README's screenshot is this page (CHAT_SCREENSHOT=examples/chat/screenshot.png).
    const shot = await ana.page.screenshot({ path: process.env.CHAT_SCREENSHOT ?? join(uploads, 'chat.png') });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    for (const user of [ana, bob, cy]) await user.context.close();
  });

  it('keeps the user signed in across a reload, with the history', async () => {
    const dee = await signIn('dee');
    await send(dee.page, 'before reload');
    await dee.page.waitForFunction(() => document.querySelectorAll('#messages .message').length > 0);
    await dee.page.reload();
    await dee.page.waitForSelector('#chat:not([hidden])');
    expect(await dee.page.textContent('#me-name')).toBe('dee');
    await dee.page.waitForFunction(() => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === 'before reload'));
    await dee.context.close();
  });

  it('shows the reason of a 400 for an empty message', async () => {
    const eve = await signIn('eve');
    await send(eve.page, '   ');
    await eve.page.waitForSelector('#send-error:not([hidden])');
    expect(await eve.page.textContent('#send-error')).toBe('A message cannot be empty');
    await eve.context.close();
  });

  it('uploads an avatar and shows it', async () => {
    const fay = await signIn('fay');
    // A 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await fay.page.setInputFiles('#avatar-file', { name: 'me.png', mimeType: 'image/png', buffer: png });
    await fay.page.click('#avatar-form button');
    await fay.page.waitForFunction(() => (document.getElementById('me-avatar') as HTMLImageElement).src.includes('/avatars/'));
    await fay.page.waitForFunction(() => {
      const img = document.getElementById('me-avatar') as HTMLImageElement;
      return img.complete && img.naturalWidth === 1;
    });
    // A file that is not an image is refused, with the reason shown.
    await fay.page.setInputFiles('#avatar-file', { name: 'x.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
    await fay.page.click('#avatar-form button');
    await fay.page.waitForSelector('#avatar-error:not([hidden])');
    expect(await fay.page.textContent('#avatar-error')).toContain('PNG, JPEG, GIF or WebP');
    await fay.context.close();
  });

  it('closes the socket of the other tab when the user signs out in one', async () => {
    const gus = await signIn('gus');
    const second = await gus.context.newPage();
    await second.goto(base);
    await online(second);
    await gus.page.click('#signout');
    await gus.page.waitForSelector('#signin:not([hidden])');
    await second.waitForSelector('#status[data-state="closed"]');
    expect(await second.textContent('#status')).toBe('signed out');
    // The session is gone for the API too.
    const me = await second.evaluate(async () => (await fetch('/api/me')).status);
    expect(me).toBe(401);
    await gus.context.close();
  });
});
