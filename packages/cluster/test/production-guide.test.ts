/**
 * The TypeScript examples of docs/production.md (docs/examples/production/) run: each is started
 * in a process of its own on a free port, asked what the guide says it answers, and stopped with
 * SIGTERM. (`pnpm --filter @velox/cluster typecheck` type-checks them; that the guide quotes each
 * file as it is, the config files for systemd, pm2, Docker and nginx included, is checked by
 * scripts/docs-examples.mjs.) pm2's config is loaded.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, killLater, later, processesWithEnv, run, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';

const dir = fileURLToPath(new URL('../../../docs/examples/production/', import.meta.url));

/** Runs an example with node and the tsx loader, from its folder (tsx reads the folder's tsconfig paths). */
function runExample(file: string, env: Record<string, string>) {
  const token = randomUUID();
  const example = run(join(dir, file), { ...env, GUIDE_TEST_RUN: token }, { cwd: dir });
  killLater(() => processesWithEnv('GUIDE_TEST_RUN', token));
  const exited = example.exited.then(({ code }) => code);
  return { proc: example.proc, exited, token, output: example.output, waitFor: (text: string) => until(() => example.output().includes(text), `"${text}" in: ${example.output()}`, 30_000) };
}

describe('docs/production.md', () => {
  it('server.ts answers its health check, believes only the proxy on loopback, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const server = runExample('server.ts', { PORT: String(port) });
    await server.waitFor(`listening on http://127.0.0.1:${port}`);
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ ok: true });
    const res = await fetch(`http://127.0.0.1:${port}/whoami`, {
      headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.com' },
    });
    expect(await res.json()).toEqual({ ip: '203.0.113.7', protocol: 'https', hostname: 'example.com' });
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('cluster.ts starts the workers from app.ts on one port, each answers, and all exit on SIGTERM', async () => {
    const port = await freePort();
    const primary = runExample('cluster.ts', { PORT: String(port), WORKERS: '2' });
    await primary.waitFor(`2 workers listening on port ${port}`);
    const workers = new Set<string>();
    for (let i = 0; i < 300 && workers.size < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/worker`, { headers: { connection: 'close' } });
      workers.add(((await res.json()) as { worker: string }).worker);
    }
    expect([...workers].sort()).toEqual(['1', '2']);
    primary.proc.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
    await until(() => processesWithEnv('GUIDE_TEST_RUN', primary.token).length === 0, 'every worker has exited');
  });

  it('shared-app.ts in a cluster of 2: a session and a WebSocket publish cross workers through Redis', async () => {
    const prefix = `velox-guide-${randomUUID()}:`;
    // The sessions this test leaves in the shared Redis (its own prefix only; never a flush).
    later(() => execFileSync('sh', ['-c', `redis-cli -h 127.0.0.1 --scan --pattern '${prefix}*' | xargs -r redis-cli -h 127.0.0.1 del`], { stdio: 'ignore' }));
    const port = await freePort();
    const primary = runExample('cluster.ts', { PORT: String(port), WORKERS: '2', APP: './shared-app.ts', SESSION_SECRET: 'a-test-secret-for-the-production-guide-0123456789', REDIS_PREFIX: prefix });
    await primary.waitFor(`2 workers listening on port ${port}`);

    // One browser: its cookie, requests on new connections until both workers answered.
    let cookie = '';
    const workers = new Set<string>();
    let visits = 0;
    for (let i = 0; i < 300 && (workers.size < 2 || visits < 4); i++) {
      const res = await fetch(`http://127.0.0.1:${port}/visits`, { headers: { connection: 'close', cookie } });
      cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      const body = (await res.json()) as { visits: number; worker: string };
      expect(body.visits).toBe(++visits); // counted on by whichever worker answers
      workers.add(body.worker);
    }
    expect([...workers].sort()).toEqual(['1', '2']);

    // Two sockets on different workers: what one sends, the other receives.
    const sockets: WebSocket[] = [];
    const byWorker = new Map<string, WebSocket>();
    try {
      for (let i = 0; i < 100 && byWorker.size < 2; i++) {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/chat`);
        sockets.push(ws);
        const hello = await new Promise<string>((resolve, reject) => {
          ws.once('message', (data) => resolve(String(data)));
          ws.once('error', reject);
        });
        const worker = /joined worker (\d)/.exec(hello)![1]!;
        if (!byWorker.has(worker)) byWorker.set(worker, ws);
      }
      const received = new Promise<string>((resolve) => byWorker.get('2')!.once('message', (data) => resolve(String(data))));
      // redisPubSub subscribes in Redis once a topic has local subscribers: retry until it carries.
      const sender = setInterval(() => byWorker.get('1')!.send('hello from worker 1'), 200);
      try {
        expect(await received).toBe('hello from worker 1');
      } finally {
        clearInterval(sender);
      }
    } finally {
      for (const ws of sockets) ws.terminate();
    }
    primary.proc.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
  });

  it('tls.ts serves HTTPS with the given key and certificate, and refuses to start without them', async () => {
    const certs = await mkdtemp(join(tmpdir(), 'velox-guide-tls-'));
    try {
      const key = join(certs, 'key.pem');
      const cert = join(certs, 'cert.pem');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
      const port = await freePort();
      const server = runExample('tls.ts', { PORT: String(port), HOST: '127.0.0.1', TLS_KEY: key, TLS_CERT: cert });
      await server.waitFor(`listening on https://localhost:${port}`);
      const ca = await readFile(cert);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', servername: 'localhost', port, path: '/', ca }, (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('Hello over https');
      server.proc.kill('SIGTERM');
      expect(await server.exited).toBe(0);

      const missing = runExample('tls.ts', { PORT: String(port), TLS_KEY: '', TLS_CERT: '' });
      expect(await missing.exited).toBe(1);
      expect(missing.output()).toContain('Set TLS_KEY and TLS_CERT');
    } finally {
      await rm(certs, { recursive: true, force: true });
    }
  });

  it('ecosystem.config.cjs loads, in fork mode, with a kill timeout longer than the drain', () => {
    const config = createRequire(import.meta.url)(join(dir, 'ecosystem.config.cjs')) as { apps: Array<Record<string, unknown>> };
    expect(config.apps[0]).toMatchObject({ script: 'dist/server.js', exec_mode: 'fork' });
    expect(config.apps[0]!.kill_timeout).toBeGreaterThan(10_000);
  });
});
