/** What the tests share: a server, the security headers of an answer, and helmet on node:http. */
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import { type Middleware, Server } from '@velox/core';
import { closeAfter } from '@velox/test-utils';
import helmet from 'helmet';

/** A Velox server closed when the test finishes; errors it logs are collected. */
export function server(): Server & { logged: unknown[] } {
  const logged: unknown[] = [];
  const app = closeAfter(new Server({ logger: { error: (e: unknown) => logged.push(e), warn: () => {} } })) as Server & { logged: unknown[] };
  app.logged = logged;
  return app;
}

/** Headers of an answer that are not security headers: transport, framing, the server's own. */
const TRANSPORT = new Set(['date', 'content-length', 'content-type', 'connection', 'keep-alive', 'transfer-encoding', 'uwebsockets']);

/** The headers of an answer but the transport ones, as a record sorted by name. */
export function securityHeaderSet(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of [...headers].sort(([a], [b]) => a.localeCompare(b))) {
    if (!TRANSPORT.has(name)) out[name] = value;
  }
  return out;
}

/** helmet 8's default header set, written out: what the README promises. */
export const HELMET_DEFAULTS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** Sets X-Powered-By as Express does, before the security headers run. */
export const poweredBy: Middleware = (req, res, next) => {
  res.set('X-Powered-By', 'Express');
  next();
};

type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Real helmet on a node:http server: `/<i>` runs `helmet(configs[i])` after setting X-Powered-By
 * (as Express does) and `res.locals.cspNonce` to `NONCE`, then answers `ok`. Resolves with the
 * base URL and a close function.
 */
export async function helmetServer(configs: readonly unknown[]): Promise<{ url: string; close: () => Promise<void> }> {
  const middlewares: NodeMiddleware[] = configs.map((config) => helmet(config as never) as NodeMiddleware);
  const node: NodeServer = createServer((req, res) => {
    const i = Number(req.url!.slice(1));
    res.setHeader('X-Powered-By', 'Express');
    (res as ServerResponse & { locals: Record<string, unknown> }).locals = { cspNonce: 'NONCE' };
    middlewares[i]!(req, res, (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
      } else res.end('ok');
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const { port } = node.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        node.closeAllConnections();
        node.close(() => resolve());
      }),
  };
}
