import { Server } from '@velox/core';
import { RedisConnection } from '@velox/redis';
import { createClient } from 'redis';
import { describe, expectTypeOf, it } from 'vitest';
import { type RedisPubSubOptions, redisPubSub, type SendStatus, type Socket, websocket } from '../src/index.ts';

describe('websocket() types', () => {
  it('types socket.data from what upgrade returns, sync or async', () => {
    websocket({
      upgrade: async () => ({ user: 'ann', admin: false }),
      open(socket) {
        expectTypeOf(socket.data).toEqualTypeOf<{ user: string; admin: boolean }>();
      },
      message(socket, message, isBinary) {
        expectTypeOf(socket.data.user).toEqualTypeOf<string>();
        expectTypeOf(message).toEqualTypeOf<ArrayBuffer>();
        expectTypeOf(isBinary).toEqualTypeOf<boolean>();
      },
      close(socket, code, reason) {
        expectTypeOf(code).toEqualTypeOf<number>();
        expectTypeOf(reason).toEqualTypeOf<string>();
      },
    });
    websocket({
      upgrade: (req) => req.get('x-user') ?? 'anonymous',
      open: (socket) => expectTypeOf(socket.data).toEqualTypeOf<string>(),
    });
    websocket({ open: (socket) => expectTypeOf(socket.data).toEqualTypeOf<undefined>() });
  });

  it('types params when given, and the socket API', () => {
    websocket<{ n: number }, { room: string }>({
      upgrade: (req) => {
        expectTypeOf(req.params.room).toEqualTypeOf<string>();
        return { n: 1 };
      },
      open(socket) {
        expectTypeOf(socket.params.room).toEqualTypeOf<string>();
        expectTypeOf(socket.send('x')).toEqualTypeOf<SendStatus>();
        expectTypeOf(socket.json({})).toEqualTypeOf<'sent' | 'queued' | 'dropped'>();
        expectTypeOf(socket.publish('t', new Uint8Array(1), true)).toEqualTypeOf<number>();
        expectTypeOf(socket.subscribe('t')).toEqualTypeOf<boolean>();
        expectTypeOf(socket.topics).toEqualTypeOf<string[]>();
        expectTypeOf(socket.closed).toEqualTypeOf<boolean>();
        expectTypeOf(socket.bufferedAmount).toEqualTypeOf<number>();
        expectTypeOf(socket.remoteAddress).toEqualTypeOf<string>();
        expectTypeOf(socket).toEqualTypeOf<Socket<{ n: number }, { room: string }>>();
      },
    });
  });

  it('fits app.ws, after middlewares, and types params from its pattern', () => {
    const app = new Server();
    app.ws('/chat/:room', (req, res, next) => next(), websocket({ upgrade: () => ({ ok: true }) }));
    app.ws(
      '/chat/:room/:thread',
      websocket({
        upgrade: (req) => {
          expectTypeOf(req.params).toEqualTypeOf<{ room: string; thread: string }>();
          return { user: 'ann' };
        },
        open(socket) {
          expectTypeOf(socket.params).toEqualTypeOf<{ room: string; thread: string }>();
          expectTypeOf(socket.data).toEqualTypeOf<{ user: string }>();
        },
        message(socket) {
          expectTypeOf(socket.params.room).toEqualTypeOf<string>();
        },
      }),
    );
    app.ws(
      '/files/*',
      (_req, _res, next) => next(),
      websocket({ open: (socket) => expectTypeOf(socket.params).toEqualTypeOf<{ '*': string }>() }),
    );
    expectTypeOf(app.publish('t', 'x')).toEqualTypeOf<number>();
    // @ts-expect-error: an object is not a message
    websocket({ open: (socket) => socket.send({ a: 1 }) });
  });
});

describe('redisPubSub types', () => {
  it('takes a url, a node-redis client or a RedisConnection of @velox/redis, with its settings', () => {
    const app = new Server();
    void app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', prefix: 'chat:ws:', connectTimeout: 5000 });
    void app.register(redisPubSub, { client: createClient(), commandTimeout: 1000, reconnectDelay: { max: 500 } });
    void app.register(redisPubSub, { connection: new RedisConnection({ url: 'redis://127.0.0.1:6379' }) });
    void app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', failFast: true });
    expectTypeOf<RedisPubSubOptions['failFast']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<RedisPubSubOptions['connection']>().toEqualTypeOf<RedisConnection | undefined>();
    expectTypeOf<RedisPubSubOptions['logger']>().toEqualTypeOf<import('@velox/core').Logger | false | undefined>();
    // @ts-expect-error: a prefix is a string
    void app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', prefix: 1 });
    // @ts-expect-error: a connection is a RedisConnection, not its options
    void app.register(redisPubSub, { connection: { url: 'redis://127.0.0.1:6379' } });
    // @ts-expect-error: failFast is true or false
    void app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', failFast: 'yes' });
  });
});
