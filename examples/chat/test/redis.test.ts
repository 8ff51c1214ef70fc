/**
 * The chat on Redis, as deployed on several processes: two servers started the way `pnpm start`
 * starts them (one of them a @velox/cluster of two workers), the same Redis, one browser context
 * on each. A message posted on one reaches the other; sessions and history are shared.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { RedisConnection } from '@velox/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `chat-test-${randomUUID()}:`;

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

const started: Started[] = [];
let browser: Browser;
let uploads: string;

/** Starts main.ts in a process of its own; resolves with the URL it prints. */
function startChat(env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: { ...process.env, PORT: '0', REDIS_URL, CHAT_PREFIX: prefix, SESSION_SECRET: 's'.repeat(40), UPLOADS_DIR: uploads, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the chat did not start: ${out}`)), 60_000);
    const take = (data: Buffer) => {
      out += data;
      const url = out.match(/listening on (http:\/\/[\d.]+:\d+)/)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, exited });
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', (d) => {
      out += d;
    });
    exited.then((code) => reject(new Error(`the chat exited with ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  uploads = await mkdtemp(join(tmpdir(), 'chat-redis-test-'));
  started.push(await startChat({ WORKERS: '2' }), await startChat({}));
  browser = await launch();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const { child, exited } of started) {
    child.kill('SIGTERM');
    await exited;
  }
  // Only this run's keys.
  const redis = new RedisConnection({ url: REDIS_URL, logger: false });
  await redis.connect();
  const keys = (await redis.command('KEYS', `${prefix}*`)) as string[];
  if (keys.length > 0) await redis.command('DEL', ...keys);
  await redis.close();
  await rm(uploads, { recursive: true, force: true });
}, 60_000);

async function signIn(base: string, name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  const page = await context.newPage();
  await page.goto(base);
  await page.fill('#name', name);
  await page.click('#signin-form button');
  await page.waitForSelector('#chat:not([hidden])');
  await page.waitForSelector('#status[data-state="open"]');
  return page;
}

const shows = (page: Page, text: string) =>
  page.waitForFunction((t) => [...document.querySelectorAll('#messages .message p')].some((p) => p.textContent === t), text);

describe('examples/chat on Redis, two server processes', () => {
  // Two browser contexts and three server processes on a 2-core machine: about 6 s when it is
  // quiet, more than vitest's default 15 s once in a loaded CI run. Each wait below still fails
  // on its own after Playwright's 30 s, naming what did not arrive.
  it('carries messages between users on different processes, both ways', { timeout: 60_000 }, async () => {
    const [a, b] = started;
    const ana = await signIn(a!.url, 'ana');
    const bob = await signIn(b!.url, 'bob');
    await ana.fill('#text', 'from the cluster');
    await ana.click('#send-form button');
    await shows(bob, 'from the cluster');
    await bob.fill('#text', 'from the single process');
    await bob.click('#send-form button');
    await shows(ana, 'from the single process');
    // Cookies do not depend on the port: ana's session cookie from the cluster is sent to the
    // single process too, which finds the session in Redis, and the shared history.
    await ana.goto(b!.url);
    await ana.waitForSelector('#chat:not([hidden])');
    expect(await ana.textContent('#me-name')).toBe('ana');
    await shows(ana, 'from the cluster');
    await shows(ana, 'from the single process');
  });

  it('keeps a session across the workers of the cluster', { timeout: 60_000 }, async () => {
    const [a] = started;
    const cy = await signIn(a!.url, 'cy');
    // Each request may land on either worker: the session lives in Redis.
    for (let i = 0; i < 6; i++) {
      const status = await cy.evaluate(async () => (await fetch('/api/me')).status);
      expect(status).toBe(200);
    }
    await cy.reload();
    await cy.waitForSelector('#chat:not([hidden])');
    await shows(cy, 'from the cluster');
    expect(await cy.textContent('#me-name')).toBe('cy');
  });
});
