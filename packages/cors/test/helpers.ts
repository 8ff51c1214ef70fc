import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, listen, parseResponses, type RawResponse, raw } from '@velox/test-utils';
import { type CorsOptions, cors } from '../src/index.ts';

export const APP = 'https://app.example.com';
export const OTHER = 'https://other.example.com';
export const EVIL = 'https://evil.example';

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** The usual routes: a JSON GET and POST, an OPTIONS route of the app's own, one that throws, one that reads its body. */
export function routes(app: Server): Server {
  app.get('/data', (req, res) => res.json({ ok: true }));
  app.post('/data', (req, res) => res.json({ posted: true }));
  app.options('/own-options', (req, res) => res.status(200).set('allow', 'GET, OPTIONS').send('the app answered'));
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.post('/echo', async (req, res) => res.send(await req.text()));
  return app;
}

/** A server with `cors(options)` for every route and the usual routes; resolves with its base URL. */
export async function corsApp(options?: CorsOptions, serverOptions: ServerOptions = {}): Promise<string> {
  const app = server(serverOptions);
  app.use(cors(options));
  routes(app);
  return listen(app);
}

/** What came back: status, headers, body text, and the Access-Control-* headers alone. */
export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  /** Every access-control-* header, by lower-case name. */
  cors: Record<string, string>;
  vary: string | null;
}

/** Every Access-Control-* header of an answer. */
export function corsHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('access-control-')) out[name] = value;
  });
  return out;
}

/** A request with `origin` (when given) and other headers. */
export async function call(url: string, { method = 'GET', origin, headers = {}, body }: { method?: string; origin?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const all: Record<string, string> = { ...headers };
  if (origin !== undefined) all.origin = origin;
  const r = await fetch(url, { method, headers: all, body, redirect: 'manual' });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text, cors: corsHeaders(r.headers), vary: r.headers.get('vary') };
}

/** A preflight: OPTIONS with Origin and Access-Control-Request-Method (and -Headers when given). */
export function preflight(url: string, origin: string, method = 'PUT', requestHeaders?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'access-control-request-method': method };
  if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
  return call(url, { method: 'OPTIONS', origin, headers });
}

/** One raw answer and its exact bytes: for repeated request headers, bytes fetch will not send, and header lines as they went out. */
export async function rawCall(url: string, head: string): Promise<RawResponse & { text: string }> {
  const { text } = await raw(url, `${head}\r\n\r\n`, { quietMs: 100 });
  const [answer] = parseResponses(text);
  if (answer === undefined) throw new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`);
  return { ...answer, text };
}

/** The header lines of a raw answer whose name is `name` (any case). */
export function lines(text: string, name: string): string[] {
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  return head
    .split('\r\n')
    .filter((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((line) => line.slice(line.indexOf(':') + 1).trim());
}
