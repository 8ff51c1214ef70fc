import { Server, type ServerOptions } from '@velox/core';
import { afterEach } from 'vitest';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((app) => app.close()));
});

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  servers.push(app);
  return app;
}

/** Listens on 127.0.0.1 and returns the base URL. */
export async function listen(app: Server): Promise<string> {
  const { port } = await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}

/** Fetches without following redirects; returns status, a header getter and the body text. */
export async function get(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
  const r = await fetch(url, { redirect: 'manual', ...init });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: () => JSON.parse(text) };
}
