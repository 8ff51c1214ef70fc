/**
 * examples/express-app: an Express 4 app whose only change is `import express from
 * '@velox/express'`. It runs as a user runs it (its own process, PORT=0, sessions in the real
 * Redis), and so does the very same file with the import put back to express@4: the same
 * walk through the app (pages, static file, API with params and errors, passport login,
 * multer upload, logout) must give the same answers on both. SIGTERM ends each with 0.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, type Running, redisPrefix, run } from '@velox/test-utils';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));
const APP = new URL('../express-app/app.mjs', import.meta.url);
const EXPRESS4_COPY = new URL('../express-app/.app.express4.mjs', import.meta.url);

afterAll(() => rm(EXPRESS4_COPY, { force: true }));

async function start(file: URL, prefix: string): Promise<Running & { url: string }> {
  const running = run(file, { PORT: '0', HOST: '127.0.0.1', REDIS_URL, SESSION_PREFIX: prefix }, { cwd: EXAMPLES });
  const [, port] = await running.waitFor(/http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
  return { ...running, url: `http://127.0.0.1:${port}` };
}

interface Step {
  status: number;
  location: string | null;
  type: string | null;
  body: string;
}

/** The walk through the app; returns each answer (status, Location, Content-Type, body). */
async function walk(url: string): Promise<Step[]> {
  let cookie = '';
  const steps: Step[] = [];
  const go = async (path: string, init: RequestInit = {}): Promise<void> => {
    const res = await fetch(url + path, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie } });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    steps.push({ status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type'), body: await res.text() });
  };
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  await go('/');
  await go('/static/site.css');
  await go('/login');
  await go('/api/notes');
  await go('/api/notes/1');
  await go('/api/notes/9');
  await go('/api/notes/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
  await go('/login', form({ username: 'ana', password: 'wrong' }));
  await go('/login?failed=1');
  await go('/login', form({ username: 'ana', password: 'secret' }));
  await go('/');
  const upload = new FormData();
  upload.append('file', new Blob(['hello upload'], { type: 'text/plain' }), 'note.txt');
  await go('/upload', { method: 'POST', body: upload });
  await go('/upload', { method: 'POST', body: new FormData() });
  await go('/api/notes/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"Buy oat milk"}' });
  await go('/api/notes/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":' });
  await go('/logout', { method: 'POST' });
  await go('/');
  await go('/nowhere');
  return steps;
}

async function stop(running: Running): Promise<number | null> {
  running.proc.kill('SIGTERM');
  const { code } = await running.exited;
  return code;
}

describe('examples/express-app', () => {
  it('answers as the same app on express@4 does, with sessions in Redis, and exits 0 on SIGTERM', async () => {
    const source = await readFile(APP, 'utf8');
    await writeFile(EXPRESS4_COPY, source.replace("import express from '@velox/express'; // was: import express from 'express';", "import express from 'express4';"));
    const prefix = redisPrefix('express-app');
    const velox = await start(APP, `${prefix}velox:`);
    const express4 = await start(EXPRESS4_COPY, `${prefix}express4:`);
    try {
      const ours = await walk(velox.url);
      const theirs = await walk(express4.url);
      expect(ours).toEqual(theirs);
      // The walk itself says what the app did.
      expect(ours[0]!.body).toContain('Not logged in');
      expect(ours[1]!.body).toContain('font-family');
      expect(ours[5]).toMatchObject({ status: 404, body: '{"error":"no note 9"}' });
      expect(ours[6]).toMatchObject({ status: 401 });
      expect(ours[7]).toMatchObject({ status: 302, location: '/login?failed=1' });
      expect(ours[9]).toMatchObject({ status: 302, location: '/' });
      expect(ours[10]!.body).toContain('Hello, Ana.');
      expect(JSON.parse(ours[11]!.body)).toEqual({ name: 'note.txt', size: 12, type: 'text/plain', by: 'ana' });
      expect(ours[12]).toMatchObject({ status: 400, body: '{"error":"no file"}' });
      expect(JSON.parse(ours[13]!.body)).toEqual({ id: '1', text: 'Buy oat milk' });
      expect(ours[14]!.status).toBe(400);
      expect(ours[16]!.body).toContain('Not logged in');
      expect(ours[17]!.status).toBe(404);
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      try {
        expect((await redis.keys(`${prefix}velox:*`)).length).toBeGreaterThan(0);
      } finally {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(keys);
        await redis.quit();
      }
    } finally {
      expect(await stop(velox)).toBe(0);
      expect(await stop(express4)).toBe(0);
    }
  }, 90_000);
});
