import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A server with the stateful middlewares of the suite (rate-limit and session stores, compression,
 * morgan, a proxy): after a few requests and app.close(), nothing they or Velox's Express surface
 * opened keeps the process alive.
 */
const SCRIPT = `
import { Server } from '@velox/core';
import compression from 'compression';
import express from 'express';
import session from 'express-session';
import { rateLimit } from 'express-rate-limit';
import { createProxyMiddleware } from 'http-proxy-middleware';
import morgan from 'morgan';
import timeout from 'connect-timeout';

const upstream = new Server({ logger: false });
upstream.get('/*', (req, res) => res.send('up'));
const { port: upPort } = await upstream.listen(0, '127.0.0.1');
const app = new Server({ logger: false });
app.use(timeout('5s'));
app.use(morgan('tiny', { stream: { write: () => {} } }));
app.use(rateLimit({ windowMs: 60_000, limit: 100 }));
app.use(session({ secret: 's', resave: false, saveUninitialized: true }));
app.use(compression());
app.use(express.json());
app.use('/proxy', createProxyMiddleware({ target: 'http://127.0.0.1:' + upPort }));
app.post('/', (req, res) => { req.socket.remoteAddress; res.json(req.body); });
const { port } = await app.listen(0, '127.0.0.1');
for (const path of ['/', '/proxy/x']) {
  const r = await fetch('http://127.0.0.1:' + port + path, { method: path === '/' ? 'POST' : 'GET', headers: { 'content-type': 'application/json' }, body: path === '/' ? '{"a":1}' : undefined });
  await r.text();
}
await app.close({ timeout: 1000 });
await upstream.close({ timeout: 1000 });
console.log('closed');
`;

describe('after app.close()', () => {
  it('lets the process exit on its own with Express middlewares in use', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: join(here, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running 10 s after it began');
      }, 10_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c ?? -1);
      });
    });
    expect(out).toContain('closed');
    expect(code).toBe(0);
  });
});
