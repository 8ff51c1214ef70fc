import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A server with the stateful middlewares of the suite (rate-limit and session stores, compression,
 * morgan, a proxy): after a few requests and app.close(), nothing they or Velox's Express surface
 * opened keeps the process alive.
 */
const SCRIPT = `
import { Server } from '@velox/core';
import { nodeCompat } from '@velox/express';
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
await app.register(nodeCompat);
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
    const child = run({ script: SCRIPT }, {}, { cwd: join(here, '../..') });
    const code = await exitCode(child, 10_000);
    expect(child.output()).toContain('closed');
    expect(code).toBe(0);
  });
});
