/**
 * What the Node-listener tests share: an app served by Node's own http or https server (closed
 * after the test), the two majors of @velox/express beside the real Express each mirrors, and a
 * self-signed certificate made with openssl.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { later, tempDir } from '@velox/test-utils';
import express5 from 'express';
import express4 from 'express4';
import velox5 from '../../src/five.ts';
import velox from '../../src/index.ts';

/** Either `express` module. */
export type AnyExpress = any;

/** Each major: @velox/express's entry, and the real Express it stands for. */
export const majors = [
  { major: 4, velox: velox as AnyExpress, express: express4 as AnyExpress },
  { major: 5, velox: velox5 as AnyExpress, express: express5 as AnyExpress },
] as const;

/** Listens on 127.0.0.1, port 0, and closes the server (and its connections) after the test. */
async function serve(server: HttpServer, scheme: 'http' | 'https'): Promise<{ url: string; port: number; server: HttpServer }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  later(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `${scheme}://127.0.0.1:${port}`, port, server };
}

/**
 * `http.createServer(app).listen(0, '127.0.0.1')`, closed after the test.
 * @example
 * ```ts
 * const { url } = await nodeHttp(app);
 * ```
 */
export function nodeHttp(app: RequestListener): Promise<{ url: string; port: number; server: HttpServer }> {
  return serve(createServer(app), 'http');
}

/** `https.createServer({ key, cert }, app)` on 127.0.0.1, port 0, closed after the test. */
export async function nodeHttps(app: RequestListener): Promise<{ url: string; port: number; server: HttpServer }> {
  const { key, cert } = await selfSigned();
  return serve(createHttpsServer({ key, cert }, app) as unknown as HttpServer, 'https');
}

/** A key and a self-signed certificate for 127.0.0.1 and localhost (openssl, in a temporary directory). */
export async function selfSigned(): Promise<{ key: string; cert: string }> {
  const dir = await tempDir('velox-express-cert-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
}

/** Headers that tell two servers apart (Date and the framing), never compared. */
const IGNORED = new Set(['date', 'transfer-encoding']);

/** What an app answered, as compared. */
export interface Answer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

/** One request to send. */
export interface Probe {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Fetches a probe without following redirects; Set-Cookie lines kept apart, one per line. */
export async function ask(base: string, probe: Probe | string): Promise<Answer> {
  const p = typeof probe === 'string' ? { path: probe } : probe;
  const res = await fetch(base + p.path, { method: p.method ?? 'GET', headers: p.headers, body: p.body, redirect: 'manual' });
  const headers: Record<string, string> = {};
  for (const [name, value] of res.headers) if (!IGNORED.has(name) && name !== 'set-cookie') headers[name] = value;
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies.join('\n');
  return { status: res.status, statusText: res.statusText, headers, body: await res.text() };
}
