/**
 * Express middlewares and the Node.js members on a server without nodeCompat: each fails at
 * registration or at first use with VELOX_ERR_PLUGIN_MISSING and a message naming the fix, never
 * with a bare TypeError. Also what nodeCompat provides: every Node placeholder core keeps for it.
 */
import { Writable } from 'node:stream';
import { ErrorCodes, isPlaceholder, Request, Response, type Server, VeloxError } from '@velox/core';
import { start } from '@velox/test-utils';
import bodyParser from 'body-parser';
import compression from 'compression';
import morgan from 'morgan';
import responseTime from 'response-time';
import { describe, expect, it } from 'vitest';
import { nodeCompat } from '../src/index.ts';
import { bareServer, server } from './helpers.ts';

const FIX = "needs the nodeCompat plugin of @velox/express: import { nodeCompat } from '@velox/express'; await app.register(nodeCompat)";

/** What the error handler of a server with exposeErrors answered: status, code, message. */
async function failure(url: string, init?: RequestInit): Promise<{ status: number; code: string; message: string }> {
  const r = await fetch(url, init);
  const body = (await r.json()) as { code: string; message: string };
  return { status: r.status, code: body.code, message: body.message };
}

/** The members that are still placeholders for nodeCompat (on `app`'s requests, or core's prototypes): using them names it. */
function nodePlaceholders(target: 'request' | 'response', app?: Server): string[] {
  const proto = target === 'request' ? Request.prototype : Response.prototype;
  return Object.getOwnPropertyNames(proto).filter((name) => {
    if (!isPlaceholder(target, name, app)) return false;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
    try {
      if (descriptor.get) descriptor.get.call({});
      else (descriptor.value as () => unknown).call({});
    } catch (err) {
      return (err as Error).message.includes('nodeCompat');
    }
    return false;
  });
}

describe('the placeholders core keeps for nodeCompat', () => {
  it('are there before any server registered it, for the Node and Express members', () => {
    const request = nodePlaceholders('request');
    const response = nodePlaceholders('response');
    expect(request).toEqual(expect.arrayContaining(['on', 'pipe', 'resume', 'socket', 'rawHeaders', 'httpVersion', 'app', 'xhr', 'range', 'subdomains']));
    expect(response).toEqual(expect.arrayContaining(['writeHead', 'setHeader', 'getHeader', 'removeHeader', '_header', 'socket', 'app', 'location', 'attachment', 'format']));
    expect(request.length + response.length).toBeGreaterThan(45);
  });
});

describe('a server without nodeCompat', () => {
  it('refuses an Express error middleware in use() at once, even if nodeCompat is registered later', async () => {
    const app = bareServer();
    const onError = (err: any, req: any, res: any, next: any) => next(err);
    let thrown: unknown;
    try {
      app.use(onError);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect((thrown as VeloxError).message).toContain(FIX);
    await app.register(nodeCompat);
    expect(() => app.use(onError)).not.toThrow();
  });

  it('answers 500 VELOX_ERR_PLUGIN_MISSING naming the fix for req.pipe, req.on, res.setHeader, res.writeHead and req.app', async () => {
    const app = bareServer({ exposeErrors: true });
    app.post('/pipe', (req) => void req.pipe(new Writable({ write: (_c, _e, done) => done() })));
    app.post('/on', (req) => void req.on('data', () => {}));
    app.get('/set-header', (req, res) => res.setHeader('x-a', '1').send('unreached'));
    app.get('/write-head', (req, res) => res.writeHead(201).end());
    app.get('/app', (req, res) => res.send(String(req.app.get('env'))));
    const { url } = await start(app);
    expect(await failure(`${url}/pipe`, { method: 'POST', body: 'x' })).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `req.pipe() ${FIX}` });
    expect(await failure(`${url}/on`, { method: 'POST', body: 'x' })).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `req.on() ${FIX}` });
    expect(await failure(`${url}/set-header`)).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `res.setHeader() ${FIX}` });
    expect(await failure(`${url}/write-head`)).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `res.writeHead ${FIX}` });
    expect(await failure(`${url}/app`)).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `req.app ${FIX}` });
  });

  it('fails Express middlewares at their first use with the same error: body-parser, morgan, compression, response-time', async () => {
    const paths: Record<string, (app: Server) => void> = {
      '/body-parser': (app) => app.use('/body-parser', bodyParser.json()),
      '/morgan': (app) => app.use('/morgan', morgan('tiny', { stream: { write: () => {} } })),
      '/compression': (app) => app.use('/compression', compression()),
      '/response-time': (app) => app.use('/response-time', responseTime()),
    };
    const logged: unknown[] = [];
    const app = bareServer({ logger: { error: (err: unknown) => logged.push(err), warn: () => {} } });
    for (const [path, add] of Object.entries(paths)) {
      add(app);
      app.post(path, (req, res) => res.send('unreached'));
    }
    const { url } = await start(app);
    for (const path of Object.keys(paths)) {
      logged.length = 0;
      const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      expect(r.status, path).toBe(500);
      await r.text();
      // compression replaced res.end before it failed, and its end fails the same way: the answer is
      // then core's bare 500; either way the error logged is the one that names the fix.
      const first = logged[0] as VeloxError;
      expect(first, path).toBeInstanceOf(VeloxError);
      expect(first.code, path).toBe(ErrorCodes.PLUGIN_MISSING);
      expect(first.message, path).toContain(FIX);
    }
  });

  it('keeps failing while another server of the process has nodeCompat', async () => {
    const withIt = server();
    withIt.get('/', (req, res) => res.send(req.httpVersion));
    const without = bareServer({ exposeErrors: true });
    without.get('/', (req, res) => res.send(req.httpVersion));
    const { url: good } = await start(withIt);
    const { url: bad } = await start(without);
    expect(await (await fetch(good)).text()).toBe('1.1');
    expect(await failure(bad)).toEqual({ status: 500, code: ErrorCodes.PLUGIN_MISSING, message: `req.httpVersion ${FIX}` });
  });
});

describe('nodeCompat', () => {
  it("provides every member core keeps a placeholder for it, and registering it again changes nothing", async () => {
    const app = bareServer();
    expect(nodePlaceholders('request', app).length).toBeGreaterThan(0);
    await app.register(nodeCompat);
    // On a server that registered nodeCompat, every Node placeholder is gone.
    expect(nodePlaceholders('request', app)).toEqual([]);
    expect(nodePlaceholders('response', app)).toEqual([]);
    await app.register(nodeCompat);
    app.get('/', (req, res) => {
      res.flushHeaders();
      res.json({ version: req.httpVersion, socket: req.socket === res.socket, app: req.app === res.app });
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).json()).toEqual({ version: '1.1', socket: true, app: true });
  });
});
