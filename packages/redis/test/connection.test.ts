import { fileURLToPath } from 'node:url';
import { VeloxError } from '@velox/core';
import { exitCode, freePort, later, ownRedis, REDIS_URL, run, until } from '@velox/test-utils';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { RedisConnection, RedisErrorCodes } from '../src/index.ts';
import { memoryLogger, prefix, server } from './helpers.ts';

/** A connection to the shared Redis, closed after the test. */
async function shared(options: ConstructorParameters<typeof RedisConnection>[0] = {}): Promise<RedisConnection> {
  const redis = new RedisConnection({ url: REDIS_URL, logger: false, ...options });
  await redis.connect();
  later(() => redis.close());
  return redis;
}

async function rejection(promise: Promise<unknown>): Promise<VeloxError> {
  try {
    await promise;
  } catch (err) {
    return err as VeloxError;
  }
  throw new Error('expected a rejection');
}

describe('RedisConnection', () => {
  it('connects from a url and sends commands', async () => {
    const redis = await shared();
    expect(redis.ready).toBe(true);
    expect(redis.owned).toBe(true);
    expect(await redis.command('SET', `${prefix}greeting`, 'hello', 'PX', 60_000)).toBe('OK');
    expect(await redis.command('GET', `${prefix}greeting`)).toBe('hello');
    expect(await redis.command('DEL', `${prefix}greeting`)).toBe(1);
  });

  it('is connected when listen() resolves when attached from a plugin, and closed by app.close()', async () => {
    const app = server();
    const redis = new RedisConnection({ url: REDIS_URL });
    await app.register((s) => redis.attach(s));
    app.get('/incr', async (req, res) => res.json({ n: await redis.command('INCR', `${prefix}hits`) }));
    const { port } = await app.listen(0, '127.0.0.1');
    expect(redis.ready).toBe(true);
    // The very first request works.
    expect(await (await fetch(`http://127.0.0.1:${port}/incr`)).json()).toEqual({ n: 1 });
    await redis.command('DEL', `${prefix}hits`);
    await app.close();
    expect(redis.ready).toBe(false);
    const err = await rejection(redis.command('PING'));
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
  });

  it('fails listen() with VELOX_ERR_REDIS_CONNECT when Redis cannot be reached within connectTimeout, with failFast', async () => {
    const port = await freePort();
    const app = server();
    const redis = new RedisConnection({ url: `redis://127.0.0.1:${port}`, connectTimeout: 300, failFast: true });
    const registered = app.register((s) => redis.attach(s));
    const err = await rejection(app.listen(0, '127.0.0.1'));
    expect(err).toBeInstanceOf(VeloxError);
    expect(err.code).toBe(RedisErrorCodes.CONNECT);
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain('300 ms');
    await expect(registered).rejects.toMatchObject({ code: RedisErrorCodes.CONNECT });
    expect(app.listening).toBe(false);
    expect(redis.ready).toBe(false);
  });

  it('hides the password of the url in the connect error', async () => {
    const port = await freePort();
    const redis = new RedisConnection({ url: `redis://user:s3cret@127.0.0.1:${port}`, connectTimeout: 200, logger: false, failFast: true });
    const err = await rejection(redis.connect());
    expect(err.code).toBe(RedisErrorCodes.CONNECT);
    expect(err.message).not.toContain('s3cret');
  });

  it('connects on a later try once Redis is there, with failFast', async () => {
    const own = await ownRedis();
    await own.stop();
    const redis = new RedisConnection({ url: own.url, connectTimeout: 200, logger: false, failFast: true });
    later(() => redis.close());
    expect((await rejection(redis.connect())).code).toBe(RedisErrorCodes.CONNECT);
    await own.start();
    await redis.connect();
    expect(await redis.command('PING')).toBe('PONG');
  });

  it('answers a Redis error reply with VELOX_ERR_REDIS_COMMAND (500)', async () => {
    const redis = await shared();
    await redis.command('SET', `${prefix}text`, 'not a number', 'PX', 60_000);
    const err = await rejection(redis.command('INCR', `${prefix}text`));
    expect(err.code).toBe(RedisErrorCodes.COMMAND);
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/not an integer/);
    // The connection is fine afterwards.
    expect(await redis.command('DEL', `${prefix}text`)).toBe(1);
  });

  it('rejects commands before connect() with VELOX_ERR_REDIS_UNAVAILABLE', async () => {
    const redis = new RedisConnection({ url: REDIS_URL, logger: false });
    const err = await rejection(redis.command('PING'));
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
    expect(err.status).toBe(503);
    expect(err.message).toContain('not connected');
  });

  it('counts connect() and close(): the last close() closes', async () => {
    const redis = new RedisConnection({ url: REDIS_URL, logger: false });
    await redis.connect();
    await redis.connect();
    await redis.close();
    expect(redis.ready).toBe(true);
    expect(await redis.command('PING')).toBe('PONG');
    await redis.close();
    expect(redis.ready).toBe(false);
  });

  it('refuses bad options at construction, saying what to write', () => {
    const code = { code: RedisErrorCodes.INVALID_OPTION };
    expect(() => new RedisConnection({ url: 'http://localhost' })).toThrow(expect.objectContaining(code));
    expect(() => new RedisConnection({ url: 'http://localhost' })).toThrow(/redis:\/\/host:6379/);
    expect(() => new RedisConnection({ connectTimeout: -1 })).toThrow(/connectTimeout must be a positive number/);
    expect(() => new RedisConnection({ commandTimeout: Number.NaN })).toThrow(/commandTimeout/);
    expect(() => new RedisConnection({ client: {} as never })).toThrow(/createClient\(\)/);
    expect(() => new RedisConnection({ failFast: 'yes' as never })).toThrow(/failFast must be true or false; got yes/);
  });

  it('refuses url and client together instead of ignoring one', () => {
    const client = createClient({ url: REDIS_URL });
    const attempt = () => new RedisConnection({ url: REDIS_URL, client: client as never });
    expect(attempt).toThrow(expect.objectContaining({ code: RedisErrorCodes.INVALID_OPTION }));
    expect(attempt).toThrow(/url or client, not both/);
  });

  it('names the connection in the connect error', async () => {
    const port = await freePort();
    const redis = new RedisConnection({ url: `redis://127.0.0.1:${port}`, connectTimeout: 200, logger: false, name: 'pub/sub', failFast: true });
    const err = await rejection(redis.connect());
    expect(err.message).toMatch(new RegExp(`^Could not connect to Redis at redis://127\\.0\\.0\\.1:${port} within 200 ms \\(pub/sub: `));
  });
});

describe('RedisConnection when Redis is not there at start-up', () => {
  it('lets listen() resolve, answers VELOX_ERR_REDIS_UNAVAILABLE meanwhile, and is connected by itself once Redis is up', async () => {
    const own = await ownRedis({ started: false });
    const app = server();
    const redis = new RedisConnection({ url: own.url, reconnectDelay: { min: 20, max: 100 } });
    await app.register((s) => redis.attach(s));
    app.get('/health', (req, res) => res.send('ok'));
    app.get('/incr', async (req, res) => res.json({ n: await redis.command('INCR', `${prefix}late`) }));
    const { port } = await app.listen(0, '127.0.0.1');
    expect(redis.ready).toBe(false);
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).text()).toBe('ok');
    expect((await fetch(`http://127.0.0.1:${port}/incr`)).status).toBe(503);
    const err = await rejection(redis.command('PING'));
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
    expect(err.message).toBe('Redis is unavailable (redis: not reached yet, retrying)');

    await own.start();
    await until(() => redis.ready, 'the connection to come up by itself', 15_000);
    expect(await (await fetch(`http://127.0.0.1:${port}/incr`)).json()).toEqual({ n: 1 });
  });

  it('logs "unreachable" once and "connected" once for a connection and its duplicate, however many attempts fail', async () => {
    const own = await ownRedis({ started: false });
    const logger = memoryLogger();
    // Attempts every 20-40 ms: dozens fail while the test waits below.
    const redis = new RedisConnection({ url: own.url, logger, reconnectDelay: { min: 20, max: 40 }, name: 'cache' });
    const subscriber = redis.duplicate({ name: 'cache subscriber' });
    later(() => redis.close());
    later(() => subscriber.close());
    await Promise.all([redis.connect(), subscriber.connect()]);
    expect(redis.ready || subscriber.ready).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    await own.start();
    await until(() => logger.lines.some((l) => l.includes('connected')), 'the line that says it is up', 15_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[0]).toBe(
      `[velox/redis] cache: Redis at ${own.url} is unreachable (connect ECONNREFUSED 127.0.0.1:${own.port}); retrying in the background`,
    );
    // Written by whichever of the two came up last.
    expect(logger.lines[1]).toMatch(new RegExp(`^\\[velox/redis\\] cache( subscriber)?: connected to Redis at ${own.url}$`));
    expect(redis.ready && subscriber.ready).toBe(true);
  });

  it('tells watchers lost at start-up and back once Redis is up, and subscriptions made then are delivered', async () => {
    const own = await ownRedis({ started: false });
    const redis = new RedisConnection({ url: own.url, logger: false, reconnectDelay: { min: 20, max: 100 } });
    const subscriber = redis.duplicate();
    later(() => redis.close());
    later(() => subscriber.close());
    const events: string[] = [];
    redis.watch({ lost: (cause) => events.push(`lost ${cause.message}`), back: () => events.push('back') });
    await redis.connect();
    await subscriber.connect();
    expect(events).toEqual([`lost connect ECONNREFUSED 127.0.0.1:${own.port}`]);
    expect((await rejection(subscriber.subscribe('news', () => {}))).code).toBe(RedisErrorCodes.UNAVAILABLE);
    await own.start();
    await until(() => events.length === 2 && subscriber.ready, 'back', 15_000);
    expect(events[1]).toBe('back');
    const got: string[] = [];
    await subscriber.subscribe('news', (m) => got.push(m.toString()));
    expect(await redis.publish('news', 'hello')).toBe(1);
    await until(() => got.length === 1, 'the message', 10_000);
  });

  it('rejects listen() with VELOX_ERR_REDIS_CONNECT only with failFast: true', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const patient = server();
    await patient.register((s) => new RedisConnection({ url, connectTimeout: 300 }).attach(s));
    await patient.listen(0, '127.0.0.1');
    expect(patient.listening).toBe(true);
    const strict = server();
    strict.register((s) => new RedisConnection({ url, connectTimeout: 300, failFast: true }).attach(s)).catch(() => {});
    await expect(strict.listen(0, '127.0.0.1')).rejects.toMatchObject({ code: RedisErrorCodes.CONNECT });
    expect(strict.listening).toBe(false);
  });
});

describe('RedisConnection.from', () => {
  it('returns the connection it is given, shared as it is', () => {
    const connection = new RedisConnection({ url: REDIS_URL, logger: false });
    expect(RedisConnection.from({ connection }, { name: 'ignored default' })).toBe(connection);
  });

  it('makes a new connection from the options over the defaults, an undefined option leaving its default', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const made = RedisConnection.from({ url, connectTimeout: undefined, logger: false, failFast: true }, { name: 'pub/sub', connectTimeout: 150 });
    expect(made.owned).toBe(true);
    const err = await rejection(made.connect());
    expect(err.code).toBe(RedisErrorCodes.CONNECT);
    expect(err.message).toContain('within 150 ms (pub/sub: ');
    const overridden = RedisConnection.from({ url, connectTimeout: 250, name: 'mine', logger: false, failFast: true }, { name: 'pub/sub', connectTimeout: 150 });
    expect((await rejection(overridden.connect())).message).toContain('within 250 ms (mine: ');
  });

  it('adopts a client of the user, like the constructor', () => {
    const client = createClient({ url: REDIS_URL });
    expect(RedisConnection.from({ client: client as never }).owned).toBe(false);
  });

  it('refuses a connection that is not a RedisConnection, and settings given alongside one', () => {
    const connection = new RedisConnection({ url: REDIS_URL, logger: false });
    const code = expect.objectContaining({ code: RedisErrorCodes.INVALID_OPTION });
    expect(() => RedisConnection.from({ connection: { url: REDIS_URL } as never })).toThrow(code);
    expect(() => RedisConnection.from({ connection: { url: REDIS_URL } as never })).toThrow(/must be a RedisConnection from @velox\/redis/);
    expect(() => RedisConnection.from({ connection, url: REDIS_URL, connectTimeout: 100 })).toThrow(code);
    expect(() => RedisConnection.from({ connection, url: REDIS_URL, connectTimeout: 100 })).toThrow(
      /give url, connectTimeout to the RedisConnection you share, not alongside it/,
    );
    expect(() => RedisConnection.from(null as never)).toThrow(/\{ url \}, \{ client \} or \{ connection \}/);
    expect(() => RedisConnection.from({ url: 'http://x' })).toThrow(code);
  });
});

describe('RedisConnection.script', () => {
  it('runs with EVALSHA, and loads the script again after Redis forgot it', async () => {
    const own = await ownRedis();
    const redis = new RedisConnection({ url: own.url, logger: false });
    await redis.connect();
    later(() => redis.close());
    const incrIfExists = redis.script("if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCR', KEYS[1]) end return -1");
    expect(incrIfExists.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await incrIfExists.run(['k'], [])).toBe(-1);
    await redis.command('SET', 'k', 1);
    expect(await incrIfExists.run(['k'], [])).toBe(2);
    await redis.command('SCRIPT', 'FLUSH');
    expect(await incrIfExists.run(['k'], [])).toBe(3);
    const broken = redis.script("return redis.call('NOPE')");
    expect((await rejection(broken.run([], []))).code).toBe(RedisErrorCodes.COMMAND);
  });
});

describe('RedisConnection pub/sub', () => {
  it('delivers binary messages as Buffers on a duplicate, and stops after unsubscribe', async () => {
    const redis = await shared();
    const subscriber = redis.duplicate();
    await subscriber.connect();
    later(() => subscriber.close());
    const channel = `${prefix}room`;
    const got: Array<[Buffer, string]> = [];
    const listener = (message: Buffer, from: string) => got.push([message, from]);
    await subscriber.subscribe(channel, listener);
    const bytes = Buffer.from([0, 255, 10, 13, 128, 0]);
    expect(await redis.publish(channel, bytes)).toBe(1);
    await redis.publish(channel, 'text');
    await until(() => got.length === 2, 'two messages', 10_000);
    expect(Buffer.isBuffer(got[0]![0])).toBe(true);
    expect(got[0]![0].equals(bytes)).toBe(true);
    expect(got[0]![1]).toBe(channel);
    expect(got[1]![0].toString()).toBe('text');
    await subscriber.unsubscribe(channel, listener);
    expect(await redis.publish(channel, 'nobody')).toBe(0);
  });

  it('keeps other listeners of a channel when one unsubscribes', async () => {
    const redis = await shared();
    const subscriber = redis.duplicate();
    await subscriber.connect();
    later(() => subscriber.close());
    const channel = `${prefix}two`;
    const a: string[] = [];
    const b: string[] = [];
    const la = (m: Buffer) => a.push(m.toString());
    await subscriber.subscribe(channel, la);
    await subscriber.subscribe(channel, (m) => b.push(m.toString()));
    await subscriber.unsubscribe(channel, la);
    await redis.publish(channel, 'x');
    await until(() => b.length === 1, 'message to b', 10_000);
    expect(a).toEqual([]);
    await subscriber.unsubscribe(channel);
    expect(await redis.publish(channel, 'y')).toBe(0);
  });
});

describe('RedisConnection when Redis goes away', () => {
  it('fails fast while down, logs rate-limited, reconnects, and restores subscriptions', async () => {
    const own = await ownRedis();
    const logger = memoryLogger();
    const redis = new RedisConnection({ url: own.url, logger, reconnectDelay: { min: 20, max: 200 } });
    const subscriber = redis.duplicate();
    await redis.connect();
    await subscriber.connect();
    later(() => redis.close());
    later(() => subscriber.close());
    const got: string[] = [];
    await subscriber.subscribe('news', (m) => got.push(m.toString()));
    await redis.publish('news', 'before');
    await until(() => got.length === 1, 'first message', 10_000);

    await own.stop();
    await until(() => !redis.ready && !subscriber.ready, 'the connection to notice', 10_000);
    // Down: a command rejects at once instead of waiting in a queue.
    const err = await rejection(redis.command('PING'));
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
    expect(err.status).toBe(503);
    expect((await rejection(subscriber.subscribe('other', () => {}))).code).toBe(RedisErrorCodes.UNAVAILABLE);
    // Many reconnection failures, few log lines (one per logInterval, 10 s by default).
    const failuresBefore = logger.lines.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(logger.lines.length - failuresBefore).toBeLessThanOrEqual(1);
    expect(logger.lines.filter((l) => l.includes('reconnecting')).length).toBeGreaterThanOrEqual(1);
    expect(logger.lines.filter((l) => l.includes('reconnecting')).length).toBeLessThanOrEqual(2);

    await own.start();
    await until(() => redis.ready && subscriber.ready, 'reconnection', 15_000);
    expect(await redis.command('PING')).toBe('PONG');
    expect(logger.lines.some((l) => l.includes('connected again'))).toBe(true);
    // node-redis subscribed again by itself: poll until the subscription is back, then check delivery.
    await until(async () => Number(await redis.publish('news', 'after')) === 1, 'resubscription', 15_000);
    await until(() => got.includes('after'), 'message after reconnect', 10_000);
  });

  it('does not crash the process on connection errors (no error listener of the user needed)', async () => {
    const own = await ownRedis();
    const redis = new RedisConnection({ url: own.url, logger: false, reconnectDelay: { min: 10, max: 50 } });
    await redis.connect();
    later(() => redis.close());
    await own.stop();
    await until(() => !redis.ready, 'disconnect', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    await own.start();
    await until(() => redis.ready, 'reconnection', 15_000);
    expect(await redis.command('PING')).toBe('PONG');
  });
});

describe('RedisConnection.watch', () => {
  it('reports the loss once and the return once, not the first connection, and stops when unwatched', async () => {
    const own = await ownRedis();
    const redis = new RedisConnection({ url: own.url, logger: false, reconnectDelay: { min: 20, max: 200 } });
    later(() => redis.close());
    const events: string[] = [];
    const unwatch = redis.watch({ lost: (cause) => events.push(`lost ${cause instanceof Error}`), back: () => events.push('back') });
    await redis.connect();
    expect(events).toEqual([]);

    await own.stop();
    await until(() => events.length === 1, 'the loss', 10_000);
    // Many failed reconnection attempts, one loss.
    await until(() => !redis.ready, 'the disconnect', 10_000);
    await own.start();
    await until(() => events.length === 2, 'the return', 15_000);
    expect(events).toEqual(['lost true', 'back']);
    expect(redis.ready).toBe(true);

    unwatch();
    await own.stop();
    await until(() => !redis.ready, 'the second disconnect', 10_000);
    await own.start();
    await until(() => redis.ready, 'the second reconnection', 15_000);
    expect(events).toEqual(['lost true', 'back']);
  });

  it('logs a watcher that throws, and still tells the others', async () => {
    const own = await ownRedis();
    const logger = memoryLogger();
    const redis = new RedisConnection({ url: own.url, logger, reconnectDelay: { min: 20, max: 200 } });
    later(() => redis.close());
    const told: string[] = [];
    redis.watch({
      lost: () => {
        throw new Error('watcher broke');
      },
    });
    redis.watch({ lost: () => told.push('lost') });
    await redis.connect();
    await own.stop();
    await until(() => told.length === 1, 'the loss', 10_000);
    expect(logger.lines).toContain('Error: watcher broke');
  });

  it('refuses a watcher that is not an object', () => {
    const redis = new RedisConnection({ logger: false });
    expect(() => redis.watch((() => {}) as never)).toThrow(expect.objectContaining({ code: RedisErrorCodes.INVALID_OPTION }));
  });
});

describe('RedisConnection.duplicate and the log', () => {
  it('logs one outage of a connection and its duplicate once, and "connected again" once both are back', async () => {
    const own = await ownRedis();
    const states: string[] = [];
    let pair: RedisConnection[] = [];
    const lines: string[] = [];
    const record = (line: unknown) => {
      lines.push(String(line));
      states.push(pair.map((c) => c.ready).join());
    };
    const logger = { error: record, warn: record, info: record };
    const redis = new RedisConnection({ url: own.url, logger, logInterval: 60_000, reconnectDelay: { min: 20, max: 200 } });
    const subscriber = redis.duplicate({ name: 'subscriber' });
    pair = [redis, subscriber];
    await redis.connect();
    await subscriber.connect();
    later(() => redis.close());
    later(() => subscriber.close());

    await own.stop();
    await until(() => !redis.ready && !subscriber.ready, 'both to notice', 10_000);
    await own.start();
    await until(() => lines.some((l) => l.includes('connected again')), 'the recovery line', 15_000);
    expect(lines.filter((l) => l.includes('reconnecting'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('connected again'))).toHaveLength(1);
    // Written when the last of the two came back.
    expect(states[lines.findIndex((l) => l.includes('connected again'))]).toBe('true,true');
  });

  it('gives the duplicate the name it is asked for', async () => {
    const redis = new RedisConnection({ url: REDIS_URL, logger: false, name: 'main' });
    const err = await rejection(redis.duplicate({ name: 'subscriber' }).command('PING'));
    expect(err.message).toBe('Redis is unavailable (subscriber: not connected)');
  });
});

describe('RedisConnection with a client of the user', () => {
  it('uses it, connects it if needed, and never closes it', async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    const redis = new RedisConnection({ client: client as never, logger: false });
    expect(redis.owned).toBe(false);
    await redis.connect();
    expect(client.isReady).toBe(true);
    expect(await redis.command('PING')).toBe('PONG');
    const subscriber = redis.duplicate();
    expect(subscriber.owned).toBe(true);
    await subscriber.connect();
    await subscriber.close();
    await redis.close();
    expect(client.isReady).toBe(true);
    expect(await client.ping()).toBe('PONG');
    await client.close();
  });

  it('leaves a client the user already connected as it is', async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    const app = server();
    const redis = new RedisConnection({ client: client as never });
    await app.register((s) => redis.attach(s));
    await app.listen(0, '127.0.0.1');
    await app.close();
    expect(client.isReady).toBe(true);
    await client.close();
  });
});

describe('RedisConnection and the process', () => {
  it('lets the process exit by itself after app.close()', async () => {
    const entry = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    const core = JSON.stringify(fileURLToPath(new URL('../node_modules/@velox/core/src/index.ts', import.meta.url)));
    const script = `
      import { Server } from ${core};
      import { RedisConnection } from ${entry};
      const app = new Server();
      const redis = new RedisConnection({ url: ${JSON.stringify(REDIS_URL)} });
      const sub = redis.duplicate();
      await app.register(async (s) => { await redis.attach(s); await sub.attach(s); });
      await sub.subscribe(${JSON.stringify(`${prefix}exit`)}, () => {});
      await app.listen(0, '127.0.0.1');
      await redis.command('PING');
      await app.close();
      console.log('CLOSED');
    `;
    const child = run({ script }, {}, { cwd: new URL('..', import.meta.url) });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('CLOSED');
    expect(code).toBe(0);
  }, 30_000);

  it('lets the process exit by itself after app.close() while Redis is still not there (no reconnection loop left)', async () => {
    const port = await freePort();
    const entry = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    const core = JSON.stringify(fileURLToPath(new URL('../node_modules/@velox/core/src/index.ts', import.meta.url)));
    const script = `
      import { Server } from ${core};
      import { RedisConnection } from ${entry};
      const app = new Server({ logger: false });
      const redis = new RedisConnection({ url: 'redis://127.0.0.1:${port}' });
      const sub = redis.duplicate();
      await app.register(async (s) => { await redis.attach(s); await sub.attach(s); });
      await app.listen(0, '127.0.0.1');
      if (redis.ready || sub.ready) throw new Error('connected to nothing?');
      // Let it retry a while in the background.
      await new Promise((r) => setTimeout(r, 500));
      await app.close();
      console.log('CLOSED');
    `;
    const child = run({ script }, {}, { cwd: new URL('..', import.meta.url) });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('CLOSED');
    expect(code).toBe(0);
  }, 30_000);
});
