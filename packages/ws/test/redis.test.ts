import type { Server } from '@velox/core';
import { RedisConnection, RedisErrorCodes } from '@velox/redis';
import { type Client, connect, freePort, ownRedis, REDIS_URL, sleep, start, until } from '@velox/test-utils';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { type RedisPubSubOptions, redisPubSub, websocket, WsErrorCodes } from '../src/index.ts';
import { server, startNode, uniquePrefix } from './helpers.ts';

const newClient = (url: string) => createClient({ url });
type Inspector = ReturnType<typeof newClient>;
const inspectors: Inspector[] = [];

afterEach(async () => {
  for (const c of inspectors.splice(0)) c.destroy();
});

/** A plain Redis client for looking at what the servers do. */
async function inspect(url = REDIS_URL): Promise<Inspector> {
  const c = newClient(url);
  c.on('error', () => {});
  inspectors.push(c);
  await c.connect();
  return c;
}

/** How many connections are subscribed to each topic's channel. */
async function numsub(redis: Inspector, prefix: string, topics: string[]): Promise<number[]> {
  const counts = await redis.pubSubNumSub(topics.map((t) => prefix + t));
  return topics.map((t) => Number(counts[prefix + t] ?? 0));
}

/** The same route as test/fixtures/node.ts, on an in-process server. */
async function node(app: Server, prefix: string, redis: RedisPubSubOptions = { url: REDIS_URL }): Promise<string> {
  await app.register(redisPubSub, { ...redis, prefix });
  app.ws(
    '/t/:topic',
    websocket({
      open: (s) => void s.subscribe(s.params.topic),
      message: (s, m, isBinary) => void s.publish(s.params.topic, m, isBinary),
    }),
  );
  return (await start(app, 'ws')).url;
}

const texts = (c: Client) => c.inbox.map((m) => (m.binary ? `bin:${m.data.toString('hex')}` : m.text));

describe('redisPubSub across processes', () => {
  // Starting the two node processes (tsx) takes most of the time: 4 to 11 s on a 2-core machine
  // shared with other test runs, and past the default 15 s when it is busier.
  it('delivers every publish of either process to the subscribers of both, once each, in order, binary too, never to the sender', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([startNode({ REDIS_URL, PREFIX: prefix }), startNode({ REDIS_URL, PREFIX: prefix })]);
    const redis = await inspect();
    const sender = await connect(`ws://127.0.0.1:${a.port}/t/room`);
    const peerA = await connect(`ws://127.0.0.1:${a.port}/t/room`);
    const peerB = await connect(`ws://127.0.0.1:${b.port}/t/room`);
    const elsewhere = await connect(`ws://127.0.0.1:${b.port}/t/other`);
    // Both processes subscribe to the room's channel in Redis; only B to the other's.
    await until(async () => (await numsub(redis, prefix, ['room', 'other'])).join() === '2,1', 'both processes to subscribe');

    const sent: string[] = [];
    for (let i = 0; i < 100; i++) {
      if (i % 10 === 9) {
        sender.send(Buffer.from([i, 0, 255]));
        sent.push(`bin:${Buffer.from([i, 0, 255]).toString('hex')}`);
      } else {
        sender.send(`message ${i}`);
        sent.push(`message ${i}`);
      }
    }
    await until(() => peerA.inbox.length === 100 && peerB.inbox.length === 100, 'a hundred messages on each peer', 15_000);
    expect(texts(peerA)).toEqual(sent);
    expect(texts(peerB)).toEqual(sent);

    // app.publish in B reaches A's sockets too, the sender included (it is not a socket's publish).
    const res = await fetch(`http://127.0.0.1:${b.port}/publish/room`, { method: 'POST', body: 'from B' });
    expect(await res.json()).toEqual({ reached: 1 });
    // Order is per publisher: B's message crosses Redis to A's sockets, A's next one is local at
    // once, so A publishes only once B's has landed everywhere.
    await until(() => sender.inbox.length === 1 && peerA.inbox.length === 101 && peerB.inbox.length === 101, 'the publish of B');
    await fetch(`http://127.0.0.1:${a.port}/publish/room`, {
      method: 'POST',
      body: new Uint8Array([1, 2]),
      headers: { 'content-type': 'application/octet-stream' },
    });
    await until(() => sender.inbox.length === 2 && peerA.inbox.length === 102 && peerB.inbox.length === 102, 'the app publishes');
    for (const c of [sender, peerA, peerB]) expect(texts(c).slice(-2)).toEqual(['from B', 'bin:0102']);

    // Nothing arrives twice, nothing reaches a topic no one published to.
    await sleep(200);
    expect(sender.inbox.length).toBe(2);
    expect(peerA.inbox.length).toBe(102);
    expect(peerB.inbox.length).toBe(102);
    expect(elsewhere.inbox).toEqual([]);
    expect(a.stderr() + b.stderr()).toBe('');
    // Two child processes to start: on a loaded machine that alone can take most of the default 15 s.
  }, 60_000);
});

describe('redisPubSub subscriptions', () => {
  it('subscribes in Redis only to topics with local subscribers, and leaves them when the last one goes', async () => {
    const prefix = uniquePrefix();
    const redis = await inspect();
    const app = server();
    const url = await node(app, prefix);
    expect(await redis.pubSubChannels(`${prefix}*`)).toEqual([]);
    const one = await connect(`${url}/t/alpha`);
    const two = await connect(`${url}/t/alpha`);
    const three = await connect(`${url}/t/beta`);
    await until(async () => (await numsub(redis, prefix, ['alpha', 'beta'])).join() === '1,1', 'alpha and beta channels');
    expect((await redis.pubSubChannels(`${prefix}*`)).sort()).toEqual([`${prefix}alpha`, `${prefix}beta`]);
    one.close();
    three.close();
    await until(async () => (await numsub(redis, prefix, ['alpha', 'beta'])).join() === '1,0', 'beta to go');
    two.terminate();
    await until(async () => (await redis.pubSubChannels(`${prefix}*`)).length === 0, 'alpha to go');
    // And back again.
    await connect(`${url}/t/alpha`);
    await until(async () => (await numsub(redis, prefix, ['alpha'])).join() === '1', 'alpha again');
  });

  it('sends each publish through Redis once: messages from other processes are delivered locally, not sent back', async () => {
    const prefix = uniquePrefix();
    const [app1, app2] = [server(), server()];
    const [url1, url2] = [await node(app1, prefix), await node(app2, prefix)];
    const redis = await inspect();
    const spy = redis.duplicate();
    spy.on('error', () => {});
    inspectors.push(spy);
    await spy.connect();
    const onWire: string[] = [];
    await spy.subscribe(`${prefix}t`, (message) => void onWire.push(message.subarray(10).toString()), true);
    const c1 = await connect(`${url1}/t/t`);
    const c2 = await connect(`${url2}/t/t`);
    await until(async () => (await numsub(redis, prefix, ['t'])).join() === '3', 'two servers and the spy');
    c1.send('one');
    expect(app2.publish('t', 'two')).toBe(1);
    await until(() => c2.inbox.length === 2 && c1.inbox.length === 1 && onWire.length === 2, 'both messages');
    await sleep(200);
    expect(onWire.sort()).toEqual(['one', 'two']);
    expect(texts(c1)).toEqual(['two']);
    expect(texts(c2).sort()).toEqual(['one', 'two']);
  });

  it('ignores, with one warning, messages on its channels that no Velox process sent', async () => {
    const prefix = uniquePrefix();
    const app = server();
    const url = await node(app, prefix);
    const c = await connect(`${url}/t/x`);
    const redis = await inspect();
    await until(async () => (await numsub(redis, prefix, ['x'])).join() === '1', 'the subscription');
    await redis.publish(`${prefix}x`, 'not from velox');
    await redis.publish(`${prefix}x`, 'again');
    await until(() => app.logs.length === 1, 'the warning');
    await sleep(100);
    expect(app.logs).toEqual([`redisPubSub: ignored a message on ${prefix}x that no Velox process sent`]);
    expect(c.inbox).toEqual([]);
  });

  it('works from an existing node-redis client, which it leaves open', async () => {
    const prefix = uniquePrefix();
    const mine = await inspect();
    const [app1, app2] = [server(), server()];
    await app1.register(redisPubSub, { client: mine, prefix });
    await app2.register(redisPubSub, { client: mine, prefix });
    for (const app of [app1, app2]) app.ws('/t', websocket({ open: (s) => void s.subscribe('t') }));
    const [{ url: u1 }, { url: u2 }] = [await start(app1, 'ws'), await start(app2, 'ws')];
    await connect(`${u1}/t`);
    const far = await connect(`${u2}/t`);
    await until(async () => (await numsub(mine, prefix, ['t'])).join() === '2', 'both subscriptions');
    app1.publish('t', 'hello');
    await until(() => far.inbox.length === 1, 'the message');
    await app1.close();
    await app2.close();
    expect(await mine.ping()).toBe('PONG');
  });

  it('connects a client that is not connected yet, and still leaves it open on close', async () => {
    const prefix = uniquePrefix();
    const mine = newClient(REDIS_URL);
    mine.on('error', () => {});
    inspectors.push(mine);
    const app = server();
    await app.register(redisPubSub, { client: mine, prefix });
    expect(mine.isReady).toBe(true);
    await app.close();
    expect(await mine.ping()).toBe('PONG');
  });

  it('shares a RedisConnection given as connection, and leaves it to its other users on close', async () => {
    const prefix = uniquePrefix();
    const shared = new RedisConnection({ url: REDIS_URL, logger: false });
    await shared.connect();
    try {
      const [app1, app2] = [server(), server()];
      const url1 = await node(app1, prefix, { connection: shared });
      const url2 = await node(app2, prefix);
      const near = await connect(`${url1}/t/t`);
      const far = await connect(`${url2}/t/t`);
      const redis = await inspect();
      await until(async () => (await numsub(redis, prefix, ['t'])).join() === '2', 'both subscriptions');
      near.send('over the shared connection');
      await until(() => far.inbox.length === 1, 'the message across');
      expect(texts(far)).toEqual(['over the shared connection']);
      await app1.close();
      // Its own subscriber is gone, the shared connection is not.
      await until(async () => (await numsub(redis, prefix, ['t'])).join() === '1', 'the subscriber of app1 to go');
      expect(shared.ready).toBe(true);
      expect(await shared.command('PING')).toBe('PONG');
    } finally {
      await shared.close();
    }
  });
});

describe('redisPubSub with Redis down', () => {
  it('keeps delivering locally and logs the loss; delivery across servers resumes when Redis is back', async () => {
    const first = await ownRedis();
    const url = `redis://127.0.0.1:${first.port}`;
    const prefix = uniquePrefix();
    const [app1, app2] = [server(), server()];
    // A long logInterval: one line for the outage however long the machine takes to restart Redis.
    const options = { url, logInterval: 600_000 };
    const [url1, url2] = [await node(app1, prefix, options), await node(app2, prefix, options)];
    const near = await connect(`${url1}/t/t`);
    const far = await connect(`${url2}/t/t`);
    let redis = await inspect(url);
    await until(async () => (await numsub(redis, prefix, ['t'])).join() === '2', 'both subscriptions');
    app1.publish('t', 'before');
    await until(() => far.inbox.length === 1, 'the first message across');

    // Stop Redis, by PID.
    await first.stop('SIGTERM');
    await until(() => app1.logs.some((l) => l.includes('[velox/redis] redisPubSub:') && l.includes('reconnecting')), 'the loss to be logged');
    expect(app1.publish('t', 'during')).toBe(1);
    await until(() => near.inbox.length === 2, 'local delivery');
    expect(texts(near)).toEqual(['before', 'during']);
    // A socket that subscribes while Redis is down gets its Redis subscription once it is back.
    const late = await connect(`${url2}/t/late`);

    // Start it again on the same port.
    await first.start();
    await until(() => app1.logs.some((l) => l.includes('could not be sent to Redis')), 'the recovery to be logged', 15_000);
    redis = await inspect(url);
    await until(async () => (await numsub(redis, prefix, ['t', 'late'])).join() === '2,1', 'the subscriptions to come back', 15_000);
    app1.publish('t', 'after');
    app1.publish('late', 'for the late one');
    await until(() => far.inbox.length === 2 && late.inbox.length === 1, 'delivery across servers again');
    expect(texts(far)).toEqual(['before', 'after']);
    expect(texts(late)).toEqual(['for the late one']);
    // The two connections of each server log one outage once, through the server's logger.
    await until(() => app1.logs.includes('[velox/redis] redisPubSub: connected again'), 'both connections back');
    expect(app1.logs.filter((l) => l.includes('reconnecting'))).toHaveLength(1);
    expect(app1.logs.filter((l) => l.includes('connected again'))).toHaveLength(1);
    expect(app1.logs.filter((l) => l.startsWith('redisPubSub:'))).toEqual([
      'redisPubSub: 1 publish could not be sent to Redis and reached this process only',
    ]);
  }, 60_000);

  it('logs what Redis refuses while connected, keeps delivering locally, and catches up once Redis accepts again', async () => {
    const own = await ownRedis();
    const admin = await inspect(`redis://127.0.0.1:${own.port}`);
    // A user that may connect but not use any channel: SUBSCRIBE and PUBLISH answer NOPERM.
    await admin.sendCommand(['ACL', 'SETUSER', 'ws', 'on', '>secret', '~*', '+@all', 'resetchannels']);
    const prefix = uniquePrefix();
    const app = server();
    const url = await node(app, prefix, { url: `redis://ws:secret@127.0.0.1:${own.port}` });
    const near = await connect(`${url}/t/t`);
    await until(() => app.logs.some((l) => l.includes('NOPERM')), 'the refused subscription to be logged');
    expect(app.publish('t', 'one')).toBe(1);
    expect(app.publish('t', 'two')).toBe(1);
    await until(() => near.inbox.length === 2, 'local delivery');
    await until(() => app.logs.filter((l) => l.includes('NOPERM')).length === 2, 'the refused publish to be logged');
    await sleep(100);
    // One line for the refused subscription, one for the first refused publish of the run.
    expect(app.logs.filter((l) => l.includes('NOPERM'))).toHaveLength(2);

    await admin.sendCommand(['ACL', 'SETUSER', 'ws', 'allchannels']);
    // The next change of the local topics subscribes again what was refused.
    await connect(`${url}/t/other`);
    await until(async () => (await numsub(admin, prefix, ['t', 'other'])).join() === '1,1', 'both subscriptions');
    expect(app.publish('t', 'three')).toBe(1);
    await until(() => app.logs.some((l) => l.startsWith('redisPubSub: 2 publishes')), 'the report');
    expect(app.logs.filter((l) => l.startsWith('redisPubSub:'))).toEqual(['redisPubSub: 2 publishes could not be sent to Redis and reached this process only']);
    expect(texts(near)).toEqual(['one', 'two', 'three']);
  }, 60_000);

  it('makes listen() reject with VELOX_ERR_REDIS_CONNECT when Redis cannot be reached with failFast: true, and not without it', async () => {
    const port = await freePort();
    const app = server();
    const loading = app.register(redisPubSub, { url: `redis://127.0.0.1:${port}`, connectTimeout: 300, failFast: true });
    await expect(loading).rejects.toMatchObject({ code: RedisErrorCodes.CONNECT });
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(/^Could not connect to Redis at redis:\/\/127.0.0.1:\d+ within 300 ms \(redisPubSub: /);
    expect(app.listening).toBe(false);
    expect(app.logs).toEqual([]);

    const patient = server();
    await patient.register(redisPubSub, { url: `redis://127.0.0.1:${port}`, connectTimeout: 300 });
    await start(patient, 'ws');
    expect(patient.listening).toBe(true);
  });
});

describe('redisPubSub with Redis not up yet at start-up', () => {
  it('starts, delivers locally meanwhile, and delivers across servers once Redis is up, logging one line each way', async () => {
    const own = await ownRedis({ started: false });
    const prefix = uniquePrefix();
    const app = server();
    const url = await node(app, prefix, { url: own.url, reconnectDelay: { min: 20, max: 100 } });
    expect(app.listening).toBe(true);
    const near = await connect(`${url}/t/t`);
    const other = await connect(`${url}/t/t`);
    // Local delivery works without Redis; the publish stays in this process.
    near.send('during');
    await until(() => other.inbox.length === 1, 'local delivery');
    expect(app.publish('t', 'also during')).toBe(2);
    await until(() => near.inbox.length === 1 && other.inbox.length === 2, 'the app publish, locally');

    await own.start();
    // Another server on that Redis, with connections of its own (as another process would have):
    // its publishes reach this one's sockets, and the other way round.
    const second = server();
    const farUrl = await node(second, prefix, { url: own.url });
    const farSocket = await connect(`${farUrl}/t/t`);
    const redis = await inspect(own.url);
    await until(async () => (await numsub(redis, prefix, ['t'])).join() === '2', 'both servers to subscribe', 20_000);
    expect(second.publish('t', 'from the other server')).toBe(1);
    await until(() => near.inbox.length === 2 && other.inbox.length === 3, 'the publish of the other server', 15_000);
    expect(texts(near)).toEqual(['also during', 'from the other server']);
    // This server's publisher is a connection of its own, reconnecting on its own backoff: a
    // publish before it is back stays local (as the two above did). The "connected" line comes
    // once every connection of the outage is back.
    await until(() => app.logs.some((l) => l.includes('connected to Redis')), 'this server to reach Redis on every connection', 15_000);
    app.publish('t', 'from here');
    await until(() => farSocket.inbox.length === 2, 'this publish in the other server', 15_000);
    expect(texts(farSocket)).toEqual(['from the other server', 'from here']);

    // One line that Redis is unreachable, one that it is up (for the two connections), and what stayed local.
    await until(() => app.logs.some((l) => l.startsWith('redisPubSub:')), 'the report of what stayed local', 15_000);
    expect(app.logs.filter((l) => l.includes('unreachable'))).toEqual([
      `[velox/redis] redisPubSub: Redis at ${own.url} is unreachable (connect ECONNREFUSED 127.0.0.1:${own.port}); retrying in the background`,
    ]);
    expect(app.logs.filter((l) => l.includes('connected'))).toEqual([`[velox/redis] redisPubSub: connected to Redis at ${own.url}`]);
    expect(app.logs.filter((l) => l.startsWith('redisPubSub:'))).toEqual([
      'redisPubSub: 2 publishes could not be sent to Redis and reached this process only',
    ]);
    expect(app.logs).toHaveLength(3);
  }, 60_000);
});

describe('redisPubSub options', () => {
  it.each([
    [{}, WsErrorCodes.INVALID_OPTION, /needs to know where Redis is: \{ url: 'redis:\/\/host:6379' \}, \{ client \}.* or \{ connection \}/],
    [{ url: REDIS_URL, prefix: 3 }, WsErrorCodes.INVALID_OPTION, /prefix must be a string/],
    [{ url: REDIS_URL, client: createClient() }, RedisErrorCodes.INVALID_OPTION, /url or client, not both/],
    [{ url: 'http://x' }, RedisErrorCodes.INVALID_OPTION, /url must look like redis:\/\/host:6379/],
    [{ client: {} }, RedisErrorCodes.INVALID_OPTION, /must be a node-redis client/],
    [{ connection: {} }, RedisErrorCodes.INVALID_OPTION, /connection must be a RedisConnection from @velox\/redis/],
    [{ connection: new RedisConnection(), connectTimeout: 100 }, RedisErrorCodes.INVALID_OPTION, /give connectTimeout to the RedisConnection you share/],
    [{ url: REDIS_URL, connectTimeout: 0 }, RedisErrorCodes.INVALID_OPTION, /connectTimeout must be a positive number of milliseconds/],
  ])('refuses %j', async (options, code, message) => {
    const app = server();
    const registering = app.register(redisPubSub, options as never);
    await expect(registering).rejects.toThrow(message);
    await expect(registering).rejects.toMatchObject({ code });
  });

  it('must come before listen(), and once per server', async () => {
    const late = server();
    await start(late, 'ws');
    await expect(late.register(redisPubSub, { url: REDIS_URL })).rejects.toMatchObject({ code: WsErrorCodes.INVALID_OPTION });
    const twice = server();
    await twice.register(redisPubSub, { url: REDIS_URL, prefix: uniquePrefix() });
    await expect(twice.register(redisPubSub, { url: REDIS_URL })).rejects.toThrow(/already registered/);
  });
});
