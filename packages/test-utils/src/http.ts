/** A server under test on 127.0.0.1, and a fetch that shows what came back. */

/** What `start()` and `listen()` need of a server: `listen(port, host)` resolving with the port. */
export interface Listener {
  listen(port: number, host: string): Promise<{ port: number }>;
}

/**
 * Listens on 127.0.0.1, port 0; resolves with the base URL (`http://`, or `ws://` when asked)
 * and the port.
 * @example
 * ```ts
 * const { url, port } = await start(app);
 * const { url: wsUrl } = await start(other, 'ws');
 * ```
 */
export async function start(app: Listener, scheme: 'http' | 'ws' = 'http'): Promise<{ url: string; port: number }> {
  const { port } = await app.listen(0, '127.0.0.1');
  return { url: `${scheme}://127.0.0.1:${port}`, port };
}

/**
 * Listens on 127.0.0.1, port 0; resolves with the base URL.
 * @example
 * ```ts
 * const url = await listen(app);
 * expect((await get(`${url}/users/1`)).status).toBe(200);
 * ```
 */
export async function listen(app: Listener): Promise<string> {
  return (await start(app)).url;
}

/**
 * Fetches without following redirects; resolves with the status, the headers, the body text and
 * a JSON reader of it.
 * @example
 * ```ts
 * const r = await get(`${url}/users/1`);
 * expect(r.json()).toEqual({ id: '1' });
 * ```
 */
export async function get(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
  const r = await fetch(url, { redirect: 'manual', ...init });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: () => JSON.parse(text) };
}
