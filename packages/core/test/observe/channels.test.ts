import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { connect as tcp } from 'node:net';
import { connect, get, later, sleep, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import {
  channelNames,
  type RequestErrorMessage,
  type RequestStartMessage,
  type ResponseFinishMessage,
  type RouteMatchMessage,
  type Server,
  type WebSocketUpgradeMessage,
} from '../../src/index.ts';
import { server } from '../helpers.ts';

type Event = { channel: string; message: any; url?: string };

/** Subscribes to every Velox channel for the test; records what `app`'s requests publish. */
function record(app: Server): Event[] {
  const events: Event[] = [];
  for (const name of Object.values(channelNames)) {
    const listener = (message: unknown) => {
      const { req } = message as RequestStartMessage;
      // What a request carries is readable while it is published, not necessarily later.
      if (req.server === app) events.push({ channel: name, message, url: name === channelNames.requestStart ? req.originalUrl : undefined });
    };
    diagnostics.subscribe(name, listener);
    later(() => diagnostics.unsubscribe(name, listener));
  }
  return events;
}

describe('diagnostics channels', () => {
  it('names the channels in the style of Node and undici', () => {
    expect(channelNames).toEqual({
      requestStart: 'velox:request:start',
      routeMatch: 'velox:request:route',
      requestError: 'velox:request:error',
      responseFinish: 'velox:response:finish',
      websocketUpgrade: 'velox:websocket:upgrade',
      bodySpillOpen: 'velox:body:spill:open',
      bodySpillWrite: 'velox:body:spill:write',
      bodySpillClose: 'velox:body:spill:close',
    });
  });

  it('publishes start, route and finish, in that order, with the request, response and route pattern', async () => {
    const app = server();
    const events = record(app);
    app.get('/users/:id', (req, res) => res.status(201).send(`user ${req.params.id}`));
    const { url } = await start(app);
    const r = await get(`${url}/users/42?x=1`);
    expect(r.status).toBe(201);
    await until(() => events.length === 3, 'three events');
    expect(events.map((e) => e.channel)).toEqual([channelNames.requestStart, channelNames.routeMatch, channelNames.responseFinish]);
    const startMessage = events[0]!.message as RequestStartMessage;
    expect(startMessage.server).toBe(app);
    expect(startMessage.route).toBe('/users/:id');
    expect(startMessage.req.method).toBe('GET');
    expect(events[0]!.url).toBe('/users/42?x=1');
    const routed = events[1]!.message as RouteMatchMessage;
    expect(routed.route).toBe('/users/:id');
    expect(routed.req).toBe(startMessage.req);
    const finished = events[2]!.message as ResponseFinishMessage;
    expect(finished.res).toBe(startMessage.res);
    expect(finished.aborted).toBe(false);
    expect(finished.res.statusCode).toBe(201);
  });

  it('publishes no route for a request that no route took (404), and finishes it', async () => {
    const app = server();
    const events = record(app);
    app.get('/here', (req, res) => res.send('here'));
    const { url } = await start(app);
    expect((await get(`${url}/nowhere`)).status).toBe(404);
    await until(() => events.some((e) => e.channel === channelNames.responseFinish), 'the finish');
    expect(events.map((e) => e.channel)).toEqual([channelNames.requestStart, channelNames.responseFinish]);
    expect((events[0]!.message as RequestStartMessage).route).toBeUndefined();
    expect((events[1]!.message as ResponseFinishMessage).res.statusCode).toBe(404);
  });

  it('reports the route of a user catch-all that answers', async () => {
    const app = server();
    const events = record(app);
    app.any('/*', (req, res) => res.send('mine'));
    const { url } = await start(app);
    expect((await get(`${url}/a/b`)).text).toBe('mine');
    await until(() => events.length === 3, 'three events');
    expect((events[1]!.message as RouteMatchMessage).route).toBe('/*');
  });

  it('publishes an error before the error handler answers, with the error itself', async () => {
    const app = server();
    const events = record(app);
    const boom = Object.assign(new Error('boom'), { code: 'E_BOOM' });
    let seenBeforeAnswer: boolean | undefined;
    diagnostics.subscribe(channelNames.requestError, function check(m) {
      const { res } = m as RequestErrorMessage;
      if (res.req.server === app) seenBeforeAnswer = !res.headersSent;
      later(() => diagnostics.unsubscribe(channelNames.requestError, check));
    });
    app.get('/fail', async () => {
      await sleep(1);
      throw boom;
    });
    const { url } = await start(app);
    expect((await get(`${url}/fail`)).status).toBe(500);
    await until(() => events.some((e) => e.channel === channelNames.responseFinish), 'the finish');
    const error = events.find((e) => e.channel === channelNames.requestError)!.message as RequestErrorMessage;
    expect(error.error).toBe(boom);
    expect(seenBeforeAnswer).toBe(true);
    expect(events.at(-1)!.message.res.statusCode).toBe(500);
  });

  it('publishes a 400 for a malformed path escape as an error with its code', async () => {
    const app = server();
    const events = record(app);
    app.get('/files/:name', (req, res) => res.send(req.params.name));
    const { url } = await start(app);
    expect((await get(`${url}/files/%E0%A4%A`)).status).toBe(400);
    await until(() => events.some((e) => e.channel === channelNames.responseFinish), 'the finish');
    const error = events.find((e) => e.channel === channelNames.requestError)!.message as RequestErrorMessage;
    expect((error.error as { code: string }).code).toBe('VELOX_ERR_BAD_ENCODING');
  });

  it('finishes an aborted request with aborted: true when the client leaves', async () => {
    const app = server();
    const events = record(app);
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
    await until(() => events.some((e) => e.channel === channelNames.responseFinish), 'the finish');
    const finished = events.find((e) => e.channel === channelNames.responseFinish)!.message as ResponseFinishMessage;
    expect(finished.aborted).toBe(true);
  });

  it('publishes a WebSocket upgrade with the route and the socket data', async () => {
    const app = server();
    const events = record(app);
    app.ws('/live/:room', { upgrade: (req) => ({ room: req.params.room }) });
    const { url } = await start(app, 'ws');
    const ws = await connect(`${url}/live/blue`);
    await until(() => events.some((e) => e.channel === channelNames.responseFinish), 'the finish');
    expect(events.map((e) => e.channel)).toEqual([
      channelNames.requestStart,
      channelNames.routeMatch,
      channelNames.websocketUpgrade,
      channelNames.responseFinish,
    ]);
    const upgrade = events[2]!.message as WebSocketUpgradeMessage;
    expect(upgrade.route).toBe('/live/:room');
    expect(upgrade.data).toEqual({ room: 'blue' });
    ws.close();
  });

  it('runs the handler inside a subscriber scope, through awaits', async () => {
    const app = server();
    const storage = new AsyncLocalStorage<string>();
    const listener = (m: unknown) => {
      const message = m as RequestStartMessage;
      if (message.server === app) message.scope((run) => storage.run(`trace-${message.req.get('x-trace')}`, run));
    };
    diagnostics.subscribe(channelNames.requestStart, listener);
    later(() => diagnostics.unsubscribe(channelNames.requestStart, listener));
    app.use((req, res, next) => {
      res.set('x-in-middleware', storage.getStore() ?? 'none');
      next();
    });
    app.get('/ctx', async (req, res) => {
      await sleep(2);
      res.send(storage.getStore() ?? 'none');
    });
    const { url } = await start(app);
    const r = await get(`${url}/ctx`, { headers: { 'x-trace': 'abc' } });
    expect(r.text).toBe('trace-abc');
    expect(r.headers.get('x-in-middleware')).toBe('trace-abc');
    expect(storage.getStore()).toBeUndefined();
  });

  it('nests scopes in subscription order, and serves the request when a scope forgets to run it', async () => {
    const app = server();
    const order: string[] = [];
    const outer = (m: unknown) => {
      const message = m as RequestStartMessage;
      if (message.server !== app) return;
      message.scope((run) => {
        order.push('outer in');
        run();
        order.push('outer out');
      });
      message.scope(() => order.push('forgetful'));
    };
    diagnostics.subscribe(channelNames.requestStart, outer);
    later(() => diagnostics.unsubscribe(channelNames.requestStart, outer));
    app.get('/', (req, res) => {
      order.push('handler');
      res.send('ok');
    });
    const { url } = await start(app);
    expect((await get(url)).text).toBe('ok');
    expect(order).toEqual(['outer in', 'forgetful', 'handler', 'outer out']);
  });

  it('refuses scope() after the publish and a scope that is not a function', async () => {
    const app = server();
    let kept: RequestStartMessage | undefined;
    let badScope: unknown;
    const listener = (m: unknown) => {
      const message = m as RequestStartMessage;
      if (message.server !== app) return;
      kept = message;
      try {
        message.scope('nope' as never);
      } catch (err) {
        badScope = err;
      }
    };
    diagnostics.subscribe(channelNames.requestStart, listener);
    later(() => diagnostics.unsubscribe(channelNames.requestStart, listener));
    app.get('/', (req, res) => res.send('ok'));
    const { url } = await start(app);
    expect((await get(url)).text).toBe('ok');
    expect(String(badScope)).toMatch(/takes a function/);
    expect(() => kept!.scope((run) => run())).toThrow(/only valid while the message is published/);
  });

  it('publishes nothing once the subscriber left', async () => {
    const app = server();
    const seen: string[] = [];
    const listener = (m: unknown) => {
      if ((m as RequestStartMessage).server === app) seen.push((m as RequestStartMessage).req.path);
    };
    diagnostics.subscribe(channelNames.requestStart, listener);
    app.get('/:n', (req, res) => res.send(req.params.n));
    const { url } = await start(app);
    await get(`${url}/1`);
    diagnostics.unsubscribe(channelNames.requestStart, listener);
    expect(diagnostics.channel(channelNames.requestStart).hasSubscribers).toBe(false);
    expect((await get(`${url}/2`)).text).toBe('2');
    expect(seen).toEqual(['/1']);
  });
});
