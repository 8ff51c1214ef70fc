import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { start, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { server } from '../helpers.ts';

describe('TLS', () => {
  it('serves HTTPS from PEM text and from files, with a passphrase and DH parameters', async () => {
    const dir = await tempDir('velox-cert-');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-keyout', key, '-out', cert, '-days', '1',
      '-subj', '/CN=127.0.0.1', '-passout', 'pass:secret',
    ], { stdio: 'ignore' });
    const get = (port: number) =>
      new Promise<{ body: string; protocol: string }>((resolve, reject) => {
        httpsRequest({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ body, protocol: String(res.headers['x-protocol']) }));
        })
          .on('error', reject)
          .end();
      });
    const dhParams = join(dir, 'dh.pem');
    execFileSync('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', 'group:ffdhe2048', '-out', dhParams], { stdio: 'ignore' });
    for (const tls of [
      { key, cert, passphrase: 'secret' },
      { key: readFileSync(key), cert: readFileSync(cert, 'utf8'), passphrase: 'secret' },
      { key, cert, passphrase: 'secret', dhParams: readFileSync(dhParams, 'utf8') },
    ]) {
      const app = server({ tls });
      app.get('/', (req, res) => res.set('x-protocol', req.protocol).send('secure'));
      const { port } = await app.listen(0, '127.0.0.1');
      expect(await get(port)).toEqual({ body: 'secure', protocol: 'https' });
    }
  });
});

describe('TLS mistakes', () => {
  it('throws a clear start-up error for unreadable key or cert files', () => {
    expect(() => server({ tls: { key: '/nonexistent/key.pem', cert: '/nonexistent/cert.pem' } })).toThrow(
      /TLS setup failed .*readable PEM files or PEM text/,
    );
  });
});

describe('WebSocket routes', () => {
  it('runs the HTTP middleware chain before the upgrade, then echoes', async () => {
    const app = server();
    app.use('/ws', (req, res, next) => (req.query.token === 'ok' ? next() : res.status(401).send('no token')));
    app.ws<{ user: string }>('/ws/:room', {
      upgrade: async (req) => ({ user: `${req.query.user}@${req.params.room}` }),
      message: (ws, message) => {
        ws.send(`${ws.getUserData().user}: ${Buffer.from(message).toString()}`);
      },
    });
    const { port } = await start(app);
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/lobby`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(refused).toBe(401);
    const reply = await new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/lobby?token=ok&user=ann`);
      ws.on('open', () => ws.send('hi'));
      ws.on('message', (data) => {
        resolve(String(data));
        ws.close();
      });
      ws.on('error', reject);
    });
    expect(reply).toBe('ann@lobby: hi');
  });
});
