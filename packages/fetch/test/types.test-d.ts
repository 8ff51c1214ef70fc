import type { Handler, Server } from '@velox/core';
import { Hono } from 'hono';
import type { GetConnInfo } from 'hono/conninfo';
import { describe, expectTypeOf, it } from 'vitest';
import { getConnInfo } from '../src/conninfo.ts';
import { createVeloxWebSocket } from '../src/hono-ws.ts';
import { type FetchServer, fetchHandler, LightResponse, serve, type VeloxBindings, veloxRequest } from '../src/index.ts';

describe('types', () => {
  it('takes the fetch of Hono, typed Bindings included, and returns a Velox handler', () => {
    const hono = new Hono<{ Bindings: VeloxBindings }>();
    hono.get('/', (c) => {
      expectTypeOf(c.env.velox.req.ip).toEqualTypeOf<string>();
      expectTypeOf(c.env.incoming.socket.remoteAddress).toEqualTypeOf<string>();
      return c.text('hi');
    });
    expectTypeOf(fetchHandler(hono.fetch)).toMatchTypeOf<Handler<any, any>>();
    expectTypeOf(serve({ fetch: hono.fetch })).resolves.toEqualTypeOf<FetchServer>();
    expectTypeOf<FetchServer['server']>().toEqualTypeOf<Server>();
    expectTypeOf<FetchServer['port']>().toEqualTypeOf<number>();
  });

  it("gives getConnInfo Hono's GetConnInfo type, and the Velox request back from a Request", () => {
    expectTypeOf(getConnInfo).toMatchTypeOf<GetConnInfo>();
    expectTypeOf(veloxRequest(new Request('http://x/'))?.ip).toEqualTypeOf<string | undefined>();
  });

  it('types LightResponse as a Response and the WebSocket helper as Hono middleware', () => {
    expectTypeOf(new LightResponse('x').status).toEqualTypeOf<number>();
    expectTypeOf(new LightResponse('x').text()).toEqualTypeOf<Promise<string>>();
    const app = new Hono();
    const { upgradeWebSocket } = createVeloxWebSocket({ app });
    app.get('/ws', upgradeWebSocket(() => ({ onMessage: (event, ws) => ws.send(String(event.data)) })));
  });
});
