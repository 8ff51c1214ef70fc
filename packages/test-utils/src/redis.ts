/**
 * The shared Redis at 127.0.0.1:6379 that every package's tests use, a PING probe, and the
 * removal of a test run's keys. Nothing here needs a test running: scripts/ensure-redis.mjs
 * (vitest's global setup) imports it too. It speaks Redis's protocol (RESP2) over `node:net`
 * itself: a Redis client as a dependency would be @velox/redis (whose tests use this package: a
 * cycle) or node-redis (loaded by every test file that imports this package), for two commands.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

/**
 * The shared Redis (started by scripts/ensure-redis.mjs when it is down). Other helpers and CI
 * use it at the same time: give every key and channel a `redisPrefix()`, never FLUSHALL/FLUSHDB.
 * @example
 * ```ts
 * const redis = new RedisConnection({ url: REDIS_URL, logger: false });
 * ```
 */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A prefix for Redis keys and channels that no other test run uses: `<name>:<12 random hex>:`.
 * @example
 * ```ts
 * const prefix = redisPrefix('velox-ws-test'); // 'velox-ws-test:3f9a0c2e71b4:'
 * ```
 */
export function redisPrefix(name: string): string {
  return `${name}:${randomBytes(6).toString('hex')}:`;
}

/**
 * Resolves true when something at 127.0.0.1:`port` answers PING with PONG, false when nothing
 * does within `timeoutMs` (a refused connection answers at once).
 * @example
 * ```ts
 * if (!(await pings(6379))) startRedis();
 * ```
 */
export function pings(port = 6379, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('close', () => done(text.startsWith('+PONG')));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
  });
}

/**
 * Deletes every key of a Redis (the shared one unless `url` says otherwise) whose name starts
 * with `prefix`, by SCAN and DEL on a connection of its own; resolves with how many it deleted.
 * The prefix is matched literally (`*`, `?`, `[`, `]` and `\` in it are escaped). Rejects on an
 * empty prefix (that would be every key of the shared Redis), a URL that is not `redis://`, an
 * error answer, or a connection that fails.
 * @example
 * ```ts
 * export const runPrefix = redisPrefix('velox-session-test');
 * afterAll(() => dropKeys(runPrefix)); // leave nothing behind in the shared Redis
 * ```
 */
export async function dropKeys(prefix: string, url: string = REDIS_URL): Promise<number> {
  if (typeof prefix !== 'string' || prefix === '') throw new Error('dropKeys: give the prefix of the keys to delete (an empty one would match every key)');
  const target = new URL(url);
  if (target.protocol !== 'redis:') throw new Error(`dropKeys: ${url} is not a redis:// URL`);
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const redis = await respConnection(Number(target.port || 6379), target.hostname || '127.0.0.1');
  try {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = (await redis.command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [Buffer, Buffer[]];
      if (keys.length > 0) deleted += (await redis.command(['DEL', ...keys])) as number;
      cursor = next.toString('latin1');
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.close();
  }
}

/** A RESP2 answer: simple strings and bulk strings as Buffers (null for a nil one), integers, arrays. */
type Reply = Buffer | number | null | Reply[];

/** One connection that sends a command at a time and resolves with its answer. */
interface RespConnection {
  command(args: Array<string | Buffer>): Promise<Reply>;
  close(): void;
}

/** Connects to host:port; resolves once connected. */
function respConnection(port: number, host: string): Promise<RespConnection> {
  return new Promise((resolveConnect, rejectConnect) => {
    const socket = connect(port, host);
    let pending = Buffer.alloc(0);
    let waiting: { resolve: (reply: Reply) => void; reject: (err: Error) => void } | undefined;
    let failure: Error | undefined;
    const fail = (err: Error) => {
      failure ??= err;
      waiting?.reject(err);
      waiting = undefined;
    };
    socket.on('data', (d) => {
      pending = pending.length === 0 ? d : Buffer.concat([pending, d]);
      if (waiting === undefined) return;
      let parsed: { reply: Reply | Error; end: number } | undefined;
      try {
        parsed = parseReply(pending, 0);
      } catch (err) {
        fail(err as Error);
        socket.destroy();
        return;
      }
      if (parsed === undefined) return; // not whole yet
      pending = pending.subarray(parsed.end);
      const { resolve, reject } = waiting;
      waiting = undefined;
      if (parsed.reply instanceof Error) reject(parsed.reply);
      else resolve(parsed.reply);
    });
    socket.on('error', (err) => {
      fail(err);
      rejectConnect(err);
    });
    socket.on('close', () => fail(new Error(`the connection to Redis at ${host}:${port} closed`)));
    socket.once('connect', () =>
      resolveConnect({
        command(args) {
          if (failure) return Promise.reject(failure);
          return new Promise((resolve, reject) => {
            waiting = { resolve, reject };
            const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
            for (const arg of args) {
              const bytes = typeof arg === 'string' ? Buffer.from(arg) : arg;
              parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
            }
            socket.write(Buffer.concat(parts));
          });
        },
        close: () => socket.destroy(),
      }),
    );
  });
}

/** The RESP2 answer that starts at `at`, and where it ends; undefined while it is not whole. An error answer parses as an Error. */
function parseReply(buf: Buffer, at: number): { reply: Reply | Error; end: number } | undefined {
  const lineEnd = buf.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString('latin1', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { reply: buf.subarray(at + 1, lineEnd), end: next };
    case '-':
      return { reply: new Error(`Redis answered: ${line}`), end: next };
    case ':':
      return { reply: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { reply: null, end: next };
      if (buf.length < next + length + 2) return undefined;
      return { reply: buf.subarray(next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { reply: null, end: next };
      const items: Reply[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, end);
        if (item === undefined) return undefined;
        if (item.reply instanceof Error) return item;
        items.push(item.reply);
        end = item.end;
      }
      return { reply: items, end };
    }
    default:
      throw new Error(`Redis sent something that is not RESP2: ${JSON.stringify(buf.toString('latin1', at, Math.min(buf.length, at + 40)))}`);
  }
}
