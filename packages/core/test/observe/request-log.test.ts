import { Writable } from 'node:stream';
import { connect as tcp } from 'node:net';
import { fileURLToPath } from 'node:url';
import { get, run, sleep, start, thrownBy, until } from '@velox/test-utils';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A real pino logger writing JSON lines into an array. */
function collector(level = 'info') {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

const completed = (lines: any[]) => lines.filter((l) => l.msg === 'request completed');

describe('request log', () => {
  it('writes one line per finished request: method, url, route, status, duration, bytes, request id', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/users/:id', (req, res) => res.status(201).send(`user ${req.params.id}`));
    const { url } = await start(app);
    const r = await get(`${url}/users/7?full=1`);
    expect(r.status).toBe(201);
    await until(() => completed(lines).length === 1, 'the request line');
    const line = completed(lines)[0];
    expect(line.level).toBe(30);
    expect(line.req).toMatchObject({ method: 'GET', url: '/users/7?full=1', route: '/users/:id', remoteAddress: '127.0.0.1' });
    expect(line.res).toEqual({ statusCode: 201, bytes: 6 });
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
    expect(line.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get('x-request-id')).toBeNull();
  });

  it('logs a 404 without a route, and an async JSON answer with its size', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/json', async (req, res) => {
      await sleep(1);
      res.json({ ok: true });
    });
    const { url } = await start(app);
    await get(`${url}/missing`);
    await get(`${url}/json`);
    await until(() => completed(lines).length === 2, 'two lines');
    const [missing, json] = completed(lines);
    expect(missing.req.route).toBeUndefined();
    expect(missing.res.statusCode).toBe(404);
    expect(json.res).toEqual({ statusCode: 200, bytes: Buffer.byteLength('{"ok":true}') });
  });

  it('gives the handler req.log, a child logger whose lines carry the request id', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/', (req, res) => {
      req.log.info({ step: 'inside' }, 'handling');
      res.send(String(req.id));
    });
    const { url } = await start(app);
    const id = (await get(url)).text;
    await until(() => completed(lines).length === 1, 'the request line');
    const handling = lines.find((l) => l.msg === 'handling');
    expect(handling).toMatchObject({ step: 'inside', reqId: id });
    expect(completed(lines)[0].reqId).toBe(id);
  });

  it('redacts authorization and cookie headers by default, and the ones asked for', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/', (req, res) => res.send('ok'));
    const other = collector();
    const custom = server({ logger: other.logger, redactHeaders: ['X-Api-Key'] });
    custom.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    const { url: customUrl } = await start(custom);
    const headers = { authorization: 'Bearer secret', cookie: 'sid=secret', 'x-api-key': 'k', 'x-visible': 'yes' };
    await get(url, { headers });
    await get(customUrl, { headers });
    await until(() => completed(lines).length === 1 && completed(other.lines).length === 1, 'both lines');
    expect(completed(lines)[0].req.headers).toMatchObject({ authorization: '[Redacted]', cookie: '[Redacted]', 'x-api-key': 'k', 'x-visible': 'yes' });
    expect(completed(other.lines)[0].req.headers).toMatchObject({ authorization: 'Bearer secret', 'x-api-key': '[Redacted]' });
  });

  it('takes the request id from x-request-id only when trustProxy trusts the peer, and echoes it when asked', async () => {
    const trusting = collector();
    const app = server({ logger: trusting.logger, trustProxy: 'loopback', echoRequestId: true });
    app.get('/', (req, res) => res.send(String(req.id)));
    const distrusting = collector();
    const other = server({ logger: distrusting.logger, echoRequestId: true });
    other.get('/', (req, res) => res.send(String(req.id)));
    const { url } = await start(app);
    const { url: otherUrl } = await start(other);
    const trusted = await get(url, { headers: { 'x-request-id': 'abc-123' } });
    expect(trusted.text).toBe('abc-123');
    expect(trusted.headers.get('x-request-id')).toBe('abc-123');
    const ignored = await get(otherUrl, { headers: { 'x-request-id': 'abc-123' } });
    expect(ignored.text).not.toBe('abc-123');
    expect(ignored.headers.get('x-request-id')).toBe(ignored.text);
  });

  it('makes a new id when the incoming one is not a plausible id (too long, spaces, control characters)', async () => {
    const { logger } = collector();
    const app = server({ logger, trustProxy: true, genReqId: () => 'fresh' });
    app.get('/', (req, res) => res.send(String(req.id)));
    const { url } = await start(app);
    expect((await get(url, { headers: { 'x-request-id': 'x'.repeat(129) } })).text).toBe('fresh');
    expect((await get(url, { headers: { 'x-request-id': 'a b' } })).text).toBe('fresh');
    expect((await get(url, { headers: { 'x-request-id': 'ok.id-1' } })).text).toBe('ok.id-1');
  });

  it('uses genReqId and its own header name, and falls back to a UUID when genReqId fails', async () => {
    const { logger, lines } = collector();
    let n = 0;
    const app = server({
      logger,
      requestIdHeader: 'X-Trace',
      echoRequestId: true,
      genReqId: () => {
        n++;
        if (n === 2) throw new Error('no ids today');
        return `req-${n}`;
      },
    });
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    expect((await get(url)).headers.get('x-trace')).toBe('req-1');
    const fallback = (await get(url)).headers.get('x-trace');
    expect(fallback).toMatch(/^[0-9a-f-]{36}$/);
    await until(() => lines.some((l) => l.msg === 'genReqId threw; a UUID is used instead'), 'the genReqId error');
  });

  it('logs an error with its code and the request id, once, at error level for a 5xx and info for a 4xx', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/boom', () => {
      throw Object.assign(new Error('database down'), { code: 'E_DB' });
    });
    app.get('/bad', () => {
      throw new VeloxError(ErrorCodes.BAD_ENCODING, 'bad input', { status: 400 });
    });
    const { url } = await start(app);
    expect((await get(`${url}/boom`)).status).toBe(500);
    expect((await get(`${url}/bad`)).status).toBe(400);
    await until(() => completed(lines).length === 2, 'two request lines');
    const errors = lines.filter((l) => l.err);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ level: 50, code: 'E_DB', statusCode: 500, msg: 'database down', reqId: completed(lines)[0].reqId });
    expect(errors[0].err.stack).toContain('database down');
    expect(errors[1]).toMatchObject({ level: 30, code: 'VELOX_ERR_BAD_ENCODING', statusCode: 400 });
  });

  it('logs a request whose client left as aborted', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    let entered = false;
    app.get('/slow', async (req, res) => {
      entered = true;
      await new Promise((resolve) => res.on('close', resolve));
    });
    const { port } = await start(app);
    const socket = tcp(port, '127.0.0.1');
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => entered, 'the handler');
    socket.destroy();
    await until(() => lines.some((l) => l.msg === 'request aborted'), 'the aborted line');
    expect(lines.find((l) => l.msg === 'request aborted').req.route).toBe('/slow');
  });

  it('stops logging once the server closed', async () => {
    const { logger, lines } = collector();
    const app = server({ logger });
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    await get(url);
    await app.close();
    const again = server({ logger: false });
    again.get('/', (req, res) => res.send('ok'));
    const { url: otherUrl } = await start(again);
    await get(otherUrl);
    await until(() => completed(lines).length === 1, 'the first line');
    await sleep(20);
    expect(completed(lines)).toHaveLength(1);
  });

  it('keeps req.log usable without request logging: the server logger, or nothing with logger: false', async () => {
    const seen: unknown[][] = [];
    const plain = { error: (...a: unknown[]) => seen.push(['error', ...a]), warn: (...a: unknown[]) => seen.push(['warn', ...a]) };
    const app = server({ logger: plain });
    app.get('/', (req, res) => {
      req.log.warn('careful');
      req.log.info('dropped: the logger has no info');
      req.log.child({ a: 1 }).error('child');
      res.send(String(req.id));
    });
    const { url } = await start(app);
    expect((await get(url)).text).toBe('undefined');
    expect(seen).toEqual([
      ['warn', 'careful'],
      ['error', 'child'],
    ]);
    const silent = server({ logger: false });
    silent.get('/', (req, res) => {
      req.log.error('nowhere');
      res.send('ok');
    });
    expect((await get((await start(silent)).url)).text).toBe('ok');
  });

  it('refuses bad logging options at start-up with what to write instead', () => {
    expect(thrownBy(() => server({ logger: 'pino' as never }))).toMatchObject({ code: 'VELOX_ERR_INVALID_OPTION', message: expect.stringMatching(/logger must be true/) });
    expect(thrownBy(() => server({ logger: console, logRequests: true }))).toMatchObject({ message: expect.stringMatching(/pino-style logger/) });
    expect(thrownBy(() => server({ logger: false, logRequests: true }))).toMatchObject({ message: expect.stringMatching(/pino-style logger/) });
    expect(thrownBy(() => server({ logger: pino({ enabled: false }), genReqId: 'uuid' as never }))).toMatchObject({ message: expect.stringMatching(/genReqId/) });
    expect(thrownBy(() => server({ logger: pino({ enabled: false }), requestIdHeader: 'bad header' }))).toMatchObject({ message: expect.stringMatching(/requestIdHeader/) });
    expect(thrownBy(() => server({ logger: pino({ enabled: false }), requestIdHeader: false, echoRequestId: true }))).toMatchObject({ message: expect.stringMatching(/echoRequestId needs/) });
    expect(thrownBy(() => server({ redactHeaders: 'cookie' as never }))).toMatchObject({ message: expect.stringMatching(/redactHeaders/) });
  });

  it('with logger: true, writes pino JSON lines to stdout, redacting headers in the application\'s lines too', async () => {
    const script = `
      import { Server } from '@velox/core';
      const app = new Server({ logger: true });
      app.get('/hello', (req, res) => {
        req.log.info({ req: { headers: { authorization: 'Bearer mine' } } }, 'my own line');
        res.send('hi');
      });
      const { port } = await app.listen(0, '127.0.0.1');
      await fetch('http://127.0.0.1:' + port + '/hello', { headers: { cookie: 'sid=1' } });
      await app.close();
    `;
    const child = run({ script }, {}, { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    expect((await child.exited).code).toBe(0);
    const lines = child
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const line = lines.find((l) => l.msg === 'request completed');
    // pino's own redaction covers what the application logs under req.headers too.
    expect(lines.find((l) => l.msg === 'my own line')).toMatchObject({ req: { headers: { authorization: '[Redacted]' } }, reqId: line.reqId });
    expect(line).toMatchObject({ level: 30, req: { method: 'GET', url: '/hello', route: '/hello', headers: { cookie: '[Redacted]' } }, res: { statusCode: 200, bytes: 2 } });
  }, 30_000);
});
