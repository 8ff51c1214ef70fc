import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { dropKeys, freePort, later, ownRedis, pings, REDIS_URL, redisPrefix } from '../src/index.ts';

/** Runs one command with redis-cli on the Redis at `port` (a client independent of the one under test). */
function cli(port: number, ...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();
}

describe('pings()', () => {
  it('is true for the shared Redis and false for a port nothing listens on', async () => {
    expect(await pings(Number(new URL(REDIS_URL).port))).toBe(true);
    expect(await pings(await freePort())).toBe(false);
  });
});

describe('redisPrefix()', () => {
  it('gives a new prefix each time, under the name', () => {
    const [a, b] = [redisPrefix('velox-test'), redisPrefix('velox-test')];
    expect(a).toMatch(/^velox-test:[0-9a-f]{12}:$/);
    expect(a).not.toBe(b);
  });
});

describe('ownRedis()', () => {
  let port = 0;

  it('starts a redis-server of its own, stops it by its PID and starts it again on the same port', async () => {
    const own = await ownRedis();
    port = own.port;
    expect(own.url).toBe(`redis://127.0.0.1:${own.port}`);
    expect(await pings(own.port)).toBe(true);
    await own.stop();
    expect(await pings(own.port)).toBe(false);
    await own.start();
    expect(await pings(own.port)).toBe(true);
    await own.stop('SIGTERM');
    expect(await pings(own.port)).toBe(false);
    await own.start();
  });

  it('takes a port, and leaves it empty until start() when not started', async () => {
    const given = await freePort();
    const own = await ownRedis({ port: given, started: false });
    expect(own.port).toBe(given);
    expect(own.url).toBe(`redis://127.0.0.1:${given}`);
    expect(await pings(given)).toBe(false);
    await own.start();
    expect(await pings(given)).toBe(true);
  });

  it('stopped it after that test', async () => {
    expect(port).toBeGreaterThan(0);
    expect(await pings(port)).toBe(false);
  });
});

describe('dropKeys()', () => {
  it('deletes every key under the prefix, over several SCAN pages, and no other', async () => {
    const own = await ownRedis();
    const prefix = redisPrefix('velox-drop');
    // 2,500 keys under the prefix (SCAN pages of 1,000 at most), of several types; some around it.
    cli(own.port, 'EVAL', `for i = 1, 2500 do redis.call('SET', ARGV[1] .. 'k' .. i, i) end return 1`, '0', prefix);
    cli(own.port, 'HSET', `${prefix}hash`, 'f', 'v');
    cli(own.port, 'RPUSH', `${prefix}list`, 'a', 'b');
    cli(own.port, 'SET', `x${prefix}outside`, '1');
    cli(own.port, 'SET', prefix.slice(0, -1), 'the prefix without its last character');
    expect(await dropKeys(prefix, own.url)).toBe(2502);
    expect(cli(own.port, 'DBSIZE')).toBe('2');
    expect(cli(own.port, 'GET', `x${prefix}outside`)).toBe('1');
    // Nothing left: a second run deletes nothing.
    expect(await dropKeys(prefix, own.url)).toBe(0);
  });

  it('matches the prefix literally: glob characters in it are not patterns', async () => {
    const own = await ownRedis();
    const prefix = 'p*[ab]?\\:';
    cli(own.port, 'SET', `${prefix}1`, '1');
    // Each of these matches the prefix read as a glob pattern, but does not start with it.
    for (const key of ['pXa?\\:1', 'p*b?\\:1', 'p*[ab]Z\\:1', 'pzzzb!\\:1', 'pXaY:1']) cli(own.port, 'SET', key, '1');
    expect(await dropKeys(prefix, own.url)).toBe(1);
    expect(cli(own.port, 'DBSIZE')).toBe('5');
    expect(cli(own.port, 'EXISTS', `${prefix}1`)).toBe('0');
  });

  it('uses the shared Redis by default', async () => {
    const prefix = redisPrefix('velox-drop');
    const port = Number(new URL(REDIS_URL).port);
    cli(port, 'SET', `${prefix}a`, '1');
    cli(port, 'SET', `${prefix}b`, '1');
    expect(await dropKeys(prefix)).toBe(2);
    expect(cli(port, 'EXISTS', `${prefix}a`, `${prefix}b`)).toBe('0');
  });

  it('refuses an empty prefix, one that is not a string, and a URL that is not redis://', async () => {
    await expect(dropKeys('')).rejects.toThrow(/give the prefix of the keys to delete/);
    await expect(dropKeys(undefined as unknown as string)).rejects.toThrow(/give the prefix of the keys to delete/);
    await expect(dropKeys('p:', 'http://127.0.0.1:6379')).rejects.toThrow(/is not a redis:\/\/ URL/);
    await expect(dropKeys('p:', 'not a url')).rejects.toThrow();
  });

  it('rejects when nothing listens, when Redis answers an error, and when the connection closes mid-way', async () => {
    await expect(dropKeys('p:', `redis://127.0.0.1:${await freePort()}`)).rejects.toThrow(/ECONNREFUSED/);
    // A server that answers every command with an error, and one that closes on the first.
    const fake = async (onData: (socket: import('node:net').Socket) => void) => {
      const server = createServer((socket) => {
        socket.on('error', () => {});
        socket.on('data', () => onData(socket));
      });
      later(() => new Promise((resolve) => server.close(resolve)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
    };
    await expect(dropKeys('p:', await fake((socket) => socket.write('-NOAUTH Authentication required.\r\n')))).rejects.toThrow(
      'Redis answered: NOAUTH Authentication required.',
    );
    await expect(dropKeys('p:', await fake((socket) => socket.destroy()))).rejects.toThrow(/closed/);
    await expect(dropKeys('p:', await fake((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')))).rejects.toThrow(/not RESP2/);
  });
});
