import diagnostics from 'node:diagnostics_channel';
import { connect as tcp } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { Router } from '@velox/router';
import { connect, get, sleep, start, thrownBy, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { channelNames, type Request } from '@velox/core';
import { METRIC_HTTP_SERVER_ACTIVE_REQUESTS, METRIC_VELOX_BODY_SPILL_FILES, METRIC_VELOX_BODY_SPILLED, OtelErrorCodes, VeloxInstrumentation } from '../src/index.ts';
import { points, server, telemetry } from './helpers.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';

describe('VeloxInstrumentation spans', () => {
  it('makes a SERVER span with the HTTP semantic-convention attributes', async () => {
    const t = telemetry();
    const app = server();
    app.get('/users/:id', (req, res) => res.status(201).send(`user ${req.params.id}`));
    const { url, port } = await start(app);
    await get(`${url}/users/7?full=1`, { headers: { 'user-agent': 'otel-test' } });
    await until(() => t.spans().length === 1, 'one span');
    const [span] = t.spans();
    expect(span!.name).toBe('GET /users/:id');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.instrumentationScope.name).toBe('@velox/otel');
    expect(span!.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/users/7',
      'url.query': 'full=1',
      'url.scheme': 'http',
      'http.route': '/users/:id',
      'http.response.status_code': 201,
      'server.address': '127.0.0.1',
      'server.port': port,
      'client.address': '127.0.0.1',
      'network.peer.address': '127.0.0.1',
      'network.protocol.version': '1.1',
      'user_agent.original': 'otel-test',
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.parentSpanContext).toBeUndefined();
  });

  it('continues the caller trace from a W3C traceparent header', async () => {
    const t = telemetry();
    const app = server();
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    await get(url, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } });
    await until(() => t.spans().length === 1, 'one span');
    const span = t.spans()[0]!;
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.parentSpanContext?.isRemote).toBe(true);
  });

  it('starts a new trace when traceparent is malformed', async () => {
    const t = telemetry();
    const app = server();
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    await get(url, { headers: { traceparent: 'garbage-not-a-traceparent' } });
    await until(() => t.spans().length === 1, 'one span');
    expect(t.spans()[0]!.parentSpanContext).toBeUndefined();
    expect(t.spans()[0]!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps the span active in the handler: an outgoing fetch to a second server and a manual span are its children', async () => {
    const t = telemetry({}, [new UndiciInstrumentation()]);
    const backend = server();
    backend.get('/data', (req, res) => res.json({ traceparent: req.get('traceparent') ?? null }));
    const { url: backendUrl } = await start(backend);
    const app = server();
    app.get('/front', async (req, res) => {
      const answer = await (await fetch(`${backendUrl}/data`)).json();
      t.tracerProvider.getTracer('manual').startActiveSpan('work', (span) => span.end());
      res.json(answer);
    });
    const { url } = await start(app);
    const { traceparent } = (await get(`${url}/front`)).json();
    // The test's own fetch is traced too: it is the root, the caller of /front.
    await until(() => t.spans().length === 5, 'five spans');
    expect(t.spans().map((s) => s.name).sort()).toEqual(['GET', 'GET', 'GET /data', 'GET /front', 'work']);
    const byName = (name: string) => t.spans().find((s) => s.name === name)!;
    const front = byName('GET /front');
    const back = byName('GET /data');
    const clients = t.spans().filter((s) => s.kind === SpanKind.CLIENT);
    const caller = clients.find((s) => s.parentSpanContext === undefined)!;
    const client = clients.find((s) => s !== caller)!;
    const manual = byName('work');
    const traceId = caller.spanContext().traceId;
    for (const span of [front, back, client, manual]) expect(span.spanContext().traceId).toBe(traceId);
    expect(front.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(client.parentSpanContext?.spanId).toBe(front.spanContext().spanId);
    expect(manual.parentSpanContext?.spanId).toBe(front.spanContext().spanId);
    expect(back.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(traceparent).toBe(`00-${traceId}-${client.spanContext().spanId}-01`);
  });

  it('keeps concurrent requests in their own traces', async () => {
    const t = telemetry();
    const app = server();
    app.get('/slow/:n', async (req, res) => {
      await sleep(Number(req.params.n));
      t.tracerProvider.getTracer('manual').startActiveSpan(`inner ${req.params.n}`, (span) => span.end());
      res.send('ok');
    });
    const { url } = await start(app);
    await Promise.all([get(`${url}/slow/15`), get(`${url}/slow/1`), get(`${url}/slow/8`)]);
    await until(() => t.spans().length === 6, 'six spans');
    for (const n of ['15', '1', '8']) {
      const inner = t.spans().find((s) => s.name === `inner ${n}`)!;
      const outer = t.spans().find((s) => s.spanContext().spanId === inner.parentSpanContext?.spanId)!;
      expect(outer.attributes['url.path']).toBe(`/slow/${n}`);
    }
  });

  it('marks a 5xx from a thrown error as an error, with error.type and the exception', async () => {
    const t = telemetry();
    const app = server();
    app.get('/boom', async () => {
      await sleep(1);
      throw Object.assign(new Error('database down'), { code: 'E_DB' });
    });
    app.get('/plain', (req, res) => res.status(503).send('later'));
    const { url } = await start(app);
    expect((await get(`${url}/boom`)).status).toBe(500);
    expect((await get(`${url}/plain`)).status).toBe(503);
    await until(() => t.spans().length === 2, 'two spans');
    const [boom, plain] = t.spans();
    expect(boom!.status.code).toBe(SpanStatusCode.ERROR);
    expect(boom!.attributes['error.type']).toBe('E_DB');
    expect(boom!.attributes['http.response.status_code']).toBe(500);
    const exception = boom!.events.find((e) => e.name === 'exception')!;
    expect(exception.attributes?.['exception.message']).toBe('database down');
    expect(plain!.attributes['error.type']).toBe('503');
    expect(plain!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('leaves a 4xx span unset (the client erred), with the exception recorded', async () => {
    const t = telemetry();
    const app = server();
    app.get('/files/:name', (req, res) => res.send(req.params.name));
    const { url } = await start(app);
    expect((await get(`${url}/files/%E0%A4%A`)).status).toBe(400);
    await until(() => t.spans().length === 1, 'one span');
    const span = t.spans()[0]!;
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(400);
    expect(span.events[0]!.attributes?.['exception.type']).toBe('VELOX_ERR_BAD_ENCODING');
  });

  it('names a 404 by its method only, without http.route', async () => {
    const t = telemetry();
    const app = server();
    app.get('/here', (req, res) => res.send('here'));
    const { url } = await start(app);
    expect((await get(`${url}/nowhere`)).status).toBe(404);
    await until(() => t.spans().length === 1, 'one span');
    const span = t.spans()[0]!;
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends the span of an aborted request with error.type aborted', async () => {
    const t = telemetry();
    const app = server();
    let entered = false;
    app.get('/slow', async (req, res) => {
      entered = true;
      await new Promise((resolve) => res.on('close', resolve));
    });
    const { port } = await start(app);
    const socket = tcp(port, '127.0.0.1');
    socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => entered, 'the handler');
    socket.destroy();
    await until(() => t.spans().length === 1, 'one span');
    const span = t.spans()[0]!;
    expect(span.attributes['error.type']).toBe('aborted');
    expect(span.attributes['http.response.status_code']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('gives a route inside nested routers its full pattern', async () => {
    const t = telemetry();
    const users = new Router();
    users.get('/:id', (req, res) => res.send(`user ${req.params.id}`));
    const api = new Router();
    api.use('/users', users);
    const app = server();
    app.use('/api', api);
    const { url } = await start(app);
    expect((await get(`${url}/api/users/9`)).text).toBe('user 9');
    await until(() => t.spans().length === 1, 'one span');
    expect(t.spans()[0]!.name).toBe('GET /api/users/:id');
    expect(t.spans()[0]!.attributes['http.route']).toBe('/api/users/:id');
  });

  it('reports an unknown method as _OTHER with the original beside it', async () => {
    const t = telemetry();
    const app = server();
    app.any('/any', (req, res) => res.send(req.method));
    const { url } = await start(app);
    expect((await get(`${url}/any`, { method: 'PURGE' })).text).toBe('PURGE');
    await until(() => t.spans().length === 1, 'one span');
    expect(t.spans()[0]!.attributes).toMatchObject({ 'http.request.method': '_OTHER', 'http.request.method_original': 'PURGE' });
    expect(t.spans()[0]!.name).toBe('_OTHER /any');
  });

  it('traces a WebSocket upgrade: 101 and a websocket.upgrade event', async () => {
    const t = telemetry();
    const app = server();
    app.ws('/live/:room', { upgrade: (req) => ({ room: req.params.room }) });
    const { url } = await start(app, 'ws');
    const ws = await connect(`${url}/live/blue`, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } });
    await until(() => t.spans().length === 1, 'one span');
    const span = t.spans()[0]!;
    expect(span.name).toBe('GET /live/:room');
    expect(span.attributes['http.response.status_code']).toBe(101);
    expect(span.events.map((e) => e.name)).toEqual(['websocket.upgrade']);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    ws.close();
  });
});

describe('VeloxInstrumentation registration', () => {
  it('traces a server created and listening before the instrumentation was registered', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    await get(url);
    const t = telemetry();
    await get(url);
    await until(() => t.spans().length === 1, 'one span');
    expect(t.spans()).toHaveLength(1);
  });

  it('stops tracing when disabled, and starts again when enabled', async () => {
    const t = telemetry();
    const app = server();
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    t.instrumentation.disable();
    await get(url);
    await sleep(10);
    expect(t.spans()).toHaveLength(0);
    t.instrumentation.enable();
    await get(url);
    await until(() => t.spans().length === 1, 'one span');
  });

  it('ends the span of a request in progress when it was disabled meanwhile', async () => {
    const t = telemetry();
    const app = server();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    app.get('/wait', async (req, res) => {
      entered = true;
      await gate;
      res.send('done');
    });
    const { url } = await start(app);
    const pending = get(`${url}/wait`);
    await until(() => entered, 'the handler');
    t.instrumentation.disable();
    release();
    expect((await pending).text).toBe('done');
    await until(() => t.spans().length === 1, 'the span');
    expect(t.spans()[0]!.attributes['http.response.status_code']).toBe(200);
  });

  it('skips what ignoreRequest says, and runs the request and response hooks', async () => {
    const t = telemetry({
      ignoreRequest: (req) => req.path === '/healthz',
      requestHook: (span, req) => span.setAttribute('tenant', req.get('x-tenant') ?? 'none'),
      responseHook: (span, req, res) => span.setAttribute('answered', res.statusCode),
      captureQuery: false,
    });
    const app = server();
    app.get('/healthz', (req, res) => res.send('ok'));
    app.get('/work', (req, res) => res.status(202).send('ok'));
    const { url } = await start(app);
    await get(`${url}/healthz`);
    await get(`${url}/work?secret=1`, { headers: { 'x-tenant': 'acme' } });
    await until(() => t.spans().length === 1, 'one span');
    await sleep(10);
    expect(t.spans()).toHaveLength(1);
    expect(t.spans()[0]!.attributes).toMatchObject({ tenant: 'acme', answered: 202 });
    expect(t.spans()[0]!.attributes['url.query']).toBeUndefined();
  });

  it('serves the request when a hook throws', async () => {
    const t = telemetry({
      requestHook: () => {
        throw new Error('hook bug');
      },
      ignoreRequest: () => {
        throw new Error('ignore bug');
      },
    });
    const app = server();
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    expect((await get(url)).text).toBe('ok');
    await until(() => t.spans().length === 1, 'one span');
  });

  it('refuses bad options with VELOX_ERR_OTEL_INVALID_OPTION', () => {
    expect(thrownBy(() => new VeloxInstrumentation({ requestHook: 'x' as never }))).toMatchObject({ code: OtelErrorCodes.INVALID_OPTION, message: expect.stringMatching(/requestHook must be a function/) });
    expect(thrownBy(() => new VeloxInstrumentation({ captureQuery: 'no' as never }))).toMatchObject({ code: OtelErrorCodes.INVALID_OPTION });
    const fine = new VeloxInstrumentation({ enabled: false });
    expect(thrownBy(() => fine.setConfig({ ignoreRequest: 1 as never }))).toMatchObject({ code: OtelErrorCodes.INVALID_OPTION });
  });
});

describe('VeloxInstrumentation metrics', () => {
  it('records http.server.request.duration in seconds with the route and status', async () => {
    const t = telemetry();
    const app = server();
    app.get('/users/:id', async (req, res) => {
      await sleep(20);
      res.send('ok');
    });
    const { url } = await start(app);
    await get(`${url}/users/1`);
    await get(`${url}/users/2`);
    await get(`${url}/missing`);
    await until(() => t.spans().length === 3, 'three spans');
    const duration = points(await t.metrics(), 'http.server.request.duration');
    const routed = duration.find((p) => p.attributes['http.route'] === '/users/:id')!;
    expect(routed.attributes).toEqual({
      'http.request.method': 'GET',
      'url.scheme': 'http',
      'network.protocol.version': '1.1',
      'http.route': '/users/:id',
      'http.response.status_code': 200,
    });
    expect(routed.value.count).toBe(2);
    expect(routed.value.sum).toBeGreaterThan(0.03);
    expect(routed.value.sum).toBeLessThan(5);
    expect(routed.value.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
    const missing = duration.find((p) => p.attributes['http.response.status_code'] === 404)!;
    expect(missing.attributes['http.route']).toBeUndefined();
  });

  it('counts active requests while they run', async () => {
    const t = telemetry();
    const app = server();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    app.get('/wait', async (req, res) => {
      entered++;
      await gate;
      res.send('done');
    });
    const { url } = await start(app);
    const pending = [get(`${url}/wait`), get(`${url}/wait`)];
    await until(() => entered === 2, 'both handlers');
    const during = points(await t.metrics(), METRIC_HTTP_SERVER_ACTIVE_REQUESTS);
    expect(during).toEqual([{ ...during[0], attributes: { 'http.request.method': 'GET', 'url.scheme': 'http' }, value: 2 }]);
    release();
    await Promise.all(pending);
    await until(() => t.spans().length === 2, 'two spans');
    expect(points(await t.metrics(), METRIC_HTTP_SERVER_ACTIVE_REQUESTS)[0]!.value).toBe(0);
  });

  it('counts request-body bytes spilled to disk and the spill files open, from core\'s channels', async () => {
    // Core's own tests check what it publishes (test/faults/body-spill.test.ts); here, the messages alone.
    const t = telemetry();
    const publish = (name: string, req: object, bytes: number) => diagnostics.channel(name).publish({ req: req as Request, bytes });
    const a = {};
    const b = {};
    publish(channelNames.bodySpillOpen, a, 0);
    publish(channelNames.bodySpillWrite, a, 524_288);
    publish(channelNames.bodySpillOpen, b, 0);
    publish(channelNames.bodySpillWrite, b, 1000);
    publish(channelNames.bodySpillWrite, a, 24);
    expect(points(await t.metrics(), METRIC_VELOX_BODY_SPILLED)[0]!.value).toBe(525_312);
    expect(points(await t.metrics(), METRIC_VELOX_BODY_SPILL_FILES)[0]!.value).toBe(2);
    publish(channelNames.bodySpillClose, a, 524_312);
    // A file opened before the instrumentation was enabled is not taken off the count.
    publish(channelNames.bodySpillClose, {}, 10);
    expect(points(await t.metrics(), METRIC_VELOX_BODY_SPILL_FILES)[0]!.value).toBe(1);
    // Disabled, it still takes off the files it counted, and nothing else.
    t.instrumentation.disable();
    publish(channelNames.bodySpillWrite, b, 5);
    publish(channelNames.bodySpillClose, b, 1005);
    expect(points(await t.metrics(), METRIC_VELOX_BODY_SPILL_FILES)[0]!.value).toBe(0);
    expect(points(await t.metrics(), METRIC_VELOX_BODY_SPILLED)[0]!.value).toBe(525_312);
    expect(diagnostics.channel(channelNames.bodySpillClose).hasSubscribers).toBe(false);
  });
});
