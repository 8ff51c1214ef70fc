import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type BodySink, type BodyStream, type BodyTransform, ErrorCodes, PreparedHead, PreparedHeader, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A transform that upper-cases whole bodies and marks the answer. */
const upper: BodyTransform = (res, body) => {
  if (body === null) return undefined;
  res.set('x-transformed', 'upper');
  return String(typeof body === 'string' ? body : Buffer.from(body).toString()).toUpperCase();
};

/** A BodyStream that wraps each chunk in brackets, writing asynchronously (as zlib does). */
function brackets(log: string[] = []): BodyStream {
  let sink: BodySink;
  return {
    start(s) {
      sink = s;
      log.push('start');
    },
    write(chunk) {
      log.push(`write ${Buffer.from(chunk).toString()}`);
      setImmediate(() => sink.write(Buffer.from(`[${Buffer.from(chunk).toString()}]`)));
      return true;
    },
    end() {
      log.push('end');
      setImmediate(() => setImmediate(() => sink.end()));
    },
    resume() {
      log.push('resume');
    },
    destroy() {
      log.push('destroy');
    },
  };
}

describe('res.transformBody()', () => {
  it('sends what the transform returns for a whole body, with its exact Content-Length and the headers it set', async () => {
    const app = server();
    app.get('/json', (req, res) => res.transformBody(upper).json({ a: 'b' }));
    app.get('/send', (req, res) => res.transformBody(upper).send('hello'));
    app.get('/html', (req, res) => res.transformBody(upper).html('<p>hi</p>'));
    app.get('/end', (req, res) => {
      res.transformBody(upper);
      res.end(Buffer.from('bytes'));
    });
    app.get('/status', (req, res) => res.transformBody(upper).sendStatus(418));
    const head = new PreparedHead(200, { 'content-type': 'text/plain' });
    app.get('/prepared', (req, res) => res.transformBody(upper).sendPrepared(head, 'prepared'));
    const { url } = await start(app);
    const cases: Array<[string, string]> = [
      ['/json', '{"A":"B"}'],
      ['/send', 'HELLO'],
      ['/html', '<P>HI</P>'],
      ['/end', 'BYTES'],
      ['/status', "I'M A TEAPOT"],
      ['/prepared', 'PREPARED'],
    ];
    for (const [path, body] of cases) {
      const r = await fetch(url + path);
      expect(await r.text(), path).toBe(body);
      expect(r.headers.get('x-transformed'), path).toBe('upper');
      expect(r.headers.get('content-length'), path).toBe(String(Buffer.byteLength(body)));
    }
  });

  it('updates a Content-Length set before to the length of the new body', async () => {
    const app = server();
    const shorten: BodyTransform = () => 'ab';
    app.get('/', (req, res) => {
      res.set('content-length', '5').transformBody(shorten);
      res.end('hello');
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.match(/content-length: (\d+)/gi)).toEqual(['Content-Length: 2']);
    expect(text.endsWith('\r\n\r\nab')).toBe(true);
  });

  it('steps aside when the transform returns undefined: the body goes out unchanged and bodyTransform is undefined after', async () => {
    const app = server();
    const seen: Array<string | null> = [];
    const none: BodyTransform = (res, body) => {
      seen.push(body === null ? null : String(body));
      return undefined;
    };
    let before: unknown;
    let after: unknown = 'unset';
    app.get('/', (req, res) => {
      res.transformBody(none);
      before = res.bodyTransform;
      res.send('plain');
      after = res.bodyTransform;
    });
    app.get('/stream', (req, res) => {
      res.transformBody(none);
      res.write('a');
      res.end('b');
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(await r.text()).toBe('plain');
    expect(r.headers.get('content-length')).toBe('5');
    expect(before).toBe(none);
    expect(after).toBeUndefined();
    expect(await (await fetch(`${url}/stream`)).text()).toBe('ab');
    expect(seen).toEqual(['plain', null]);
  });

  it('runs after onSend hooks and beforeHead tasks, so it sees the final head', async () => {
    const app = server();
    app.addHook('onSend', (req, res) => {
      res.set('x-hook', 'on');
    });
    let seen = '';
    const look: BodyTransform = (res) => {
      seen = `${res.get('x-hook')} ${res.get('x-task')} ${res.statusCode}`;
      return undefined;
    };
    app.get('/', (req, res) => {
      res.transformBody(look).beforeHead(async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        r.set('x-task', 'done');
      });
      res.status(201).send('x');
    });
    const { url } = await start(app);
    expect((await fetch(url)).status).toBe(201);
    expect(seen).toBe('on done 201');
  });

  it('streams a whole body through a BodyStream: chunked, no Content-Length, finished only when the stream ends', async () => {
    const app = server();
    const log: string[] = [];
    const wrap: BodyTransform = () => brackets(log);
    app.addHook('onResponse', (req) => {
      log.push(`onResponse ${req.path}`);
    });
    app.get('/', (req, res) => {
      res.set('content-length', '3').transformBody(wrap);
      res.on('finish', () => log.push('finish'));
      res.send('abc');
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/transfer-encoding: chunked/i);
    expect(text).not.toMatch(/content-length/i);
    expect(text).toContain('\r\n5\r\n[abc]\r\n0\r\n\r\n');
    await expect.poll(() => log.length).toBe(5);
    expect(log).toEqual(['start', 'write abc', 'end', 'onResponse /', 'finish']);
  });

  it('takes every chunk of a streamed body through the stream, in order, and the last chunk of end()', async () => {
    const app = server();
    const log: string[] = [];
    app.get('/write', (req, res) => {
      res.transformBody(() => brackets(log));
      expect(res.write('one')).toBe(true);
      setTimeout(() => {
        res.write(Buffer.from('two'));
        res.end('three');
      }, 5);
    });
    app.get('/stream', (req, res) => {
      res.transformBody(() => brackets());
      void res.stream(Readable.from(['s1', 's2']));
    });
    app.get('/sse', (req, res) => {
      res.transformBody(() => brackets());
      const events = res.sse();
      events.send('hi');
      setTimeout(() => events.close(), 5);
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/write`)).text()).toBe('[one][two][three]');
    expect(log).toEqual(['start', 'write one', 'write two', 'write three', 'end']);
    expect(await (await fetch(`${url}/stream`)).text()).toBe('[s1][s2]');
    expect(await (await fetch(`${url}/sse`)).text()).toBe('[:\n\n][data: hi\n\n]');
  });

  it('keeps the Content-Length of stream() with a size when the transform steps aside', async () => {
    const app = server();
    let length: unknown;
    const aside: BodyTransform = (res) => {
      length = res.get('content-length');
      return undefined;
    };
    app.get('/', (req, res) => {
      res.transformBody(aside);
      void res.stream(Readable.from([Buffer.from('12345'), Buffer.from('678')]), { size: 8 });
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(length).toBe('8');
    expect(text).toMatch(/Content-Length: 8\r\n/i);
    expect(text).not.toMatch(/chunked/i);
    expect(text.endsWith('\r\n\r\n12345678')).toBe(true);
  });

  it('is called for HEAD and for 204/304 (headers it sets arrive), and what it returns is ignored', async () => {
    const app = server();
    const log: string[] = [];
    const tagging: BodyTransform = (res, body) => {
      res.set('x-seen', 'yes');
      log.push(`${res.req.method} ${res.statusCode} ${body === null ? 'null' : String(body)}`);
      return res.statusCode === 304 ? brackets(log) : 'REPLACED';
    };
    app.get('/', (req, res) => res.transformBody(tagging).send('hello'));
    app.get('/none', (req, res) => res.transformBody(tagging).sendStatus(204));
    app.get('/same', (req, res) => res.transformBody(tagging).status(304).end());
    const { port, url } = await start(app);
    const head = await raw(port, 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(head.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head.text).toMatch(/x-seen: yes/i);
    expect(head.text).toMatch(/Content-Length: 5\r\n/i);
    const none = await fetch(`${url}/none`);
    expect(none.status).toBe(204);
    expect(none.headers.get('x-seen')).toBe('yes');
    expect(await none.text()).toBe('');
    const same = await fetch(`${url}/same`);
    expect(same.status).toBe(304);
    expect(same.headers.get('x-seen')).toBe('yes');
    expect(log).toEqual(['HEAD 200 hello', 'GET 204 ', 'GET 304 ', 'destroy']);
  });

  it('fails a response whose transform throws through the error path, without the transform', async () => {
    const logged: unknown[] = [];
    const app = server({ logger: { error: (e: unknown) => logged.push(e), warn: () => {} } });
    let calls = 0;
    const broken: BodyTransform = () => {
      calls++;
      throw new Error('transform bug');
    };
    app.get('/', (req, res) => res.transformBody(broken).send('x'));
    app.get('/write', (req, res) => {
      res.transformBody(broken);
      expect(res.write('x')).toBe(false);
      // The error answer went out in its place.
      expect(res.finished).toBe(true);
    });
    const { url } = await start(app);
    for (const path of ['/', '/write']) {
      const r = await fetch(url + path);
      expect(r.status).toBe(500);
      // The error handler's own answer, sent without the transform (which would throw again).
      expect(await r.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' });
    }
    expect(calls).toBe(2);
    expect(logged.map((e) => (e as Error).message)).toEqual(['transform bug', 'transform bug']);
  });

  it('has one owner: a second, different transform throws VELOX_ERR_INVALID_OPTION; the same one again does not', async () => {
    const app = server();
    const errors: unknown[] = [];
    app.get('/', (req, res) => {
      res.transformBody(upper).transformBody(upper);
      try {
        res.transformBody(() => undefined);
      } catch (err) {
        errors.push(err);
      }
      try {
        res.transformBody('nope' as unknown as BodyTransform);
      } catch (err) {
        errors.push(err);
      }
      res.send('ok');
      try {
        res.transformBody(upper);
      } catch (err) {
        errors.push(err);
      }
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('OK');
    expect(errors.map((e) => (e as VeloxError).code)).toEqual([ErrorCodes.INVALID_OPTION, ErrorCodes.INVALID_OPTION, ErrorCodes.HEADERS_SENT]);
    expect(errors.every((e) => e instanceof VeloxError)).toBe(true);
  });

  it('destroys the stream once when the client leaves mid-stream, and the server keeps serving', async () => {
    const app = server();
    const log: string[] = [];
    let closed = false;
    app.get('/slow', (req, res) => {
      res.transformBody(() => brackets(log));
      res.on('close', () => {
        closed = true;
      });
      res.write('first');
      // never ends: the client leaves
    });
    app.get('/ok', (req, res) => res.send('ok'));
    const { port, url } = await start(app);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (d) => {
        if (d.toString().includes('[first]')) socket.destroy();
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await expect.poll(() => closed).toBe(true);
    expect(log.filter((l) => l === 'destroy')).toEqual(['destroy']);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
  });

  it('calls resume() after the socket drained when sink.write() returned false, and every byte arrives', async () => {
    const app = server();
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const log: string[] = [];
    const big: BodyTransform = () => {
      let sink: BodySink;
      let left = 16;
      const pump = () => {
        while (left > 0) {
          left--;
          if (!sink.write(chunk)) return;
        }
        sink.end();
      };
      return {
        start(s) {
          sink = s;
        },
        write() {
          return true;
        },
        end() {
          pump();
        },
        resume() {
          log.push('resume');
          pump();
        },
        destroy() {
          log.push('destroy');
        },
      };
    };
    app.get('/', (req, res) => res.transformBody(big).send('go'));
    const { port } = await start(app);
    const received = await new Promise<number>((resolve, reject) => {
      let bytes = 0;
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      socket.pause();
      setTimeout(() => socket.resume(), 200);
      socket.on('data', (d) => {
        bytes += d.length;
      });
      socket.on('close', () => resolve(bytes));
      socket.on('error', reject);
    });
    expect(received).toBeGreaterThan(16 * 1024 * 1024);
    expect(log).toContain('resume');
    expect(log).not.toContain('destroy');
  });

  it('cuts the connection and logs the error when the stream calls sink.fail()', async () => {
    const logged: unknown[] = [];
    const app = server({ logger: { error: (e: unknown) => logged.push(e), warn: () => {} } });
    const failing: BodyTransform = () => {
      let sink: BodySink;
      return {
        start(s) {
          sink = s;
        },
        write(c) {
          sink.write(c);
          return true;
        },
        end() {
          // Later, as an encoder's error comes: what went out before stays out.
          setTimeout(() => sink.fail(new Error('encoder broke')), 20);
        },
        resume() {},
        destroy() {},
      };
    };
    app.get('/', (req, res) => {
      res.transformBody(failing);
      res.write('part');
      setTimeout(() => res.end(), 20);
    });
    const { port } = await start(app);
    const { text, closed } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(closed).toBe(true);
    expect(text).toContain('part');
    expect(text).not.toContain('\r\n0\r\n\r\n');
    expect(logged.map((e) => (e as Error).message)).toEqual(['encoder broke']);
  });
});

describe('res.setPrepared() with a list', () => {
  it('sets every header of the list on a response with none, the later of a name twice winning', async () => {
    const app = server();
    const block = [new PreparedHeader('X-A', '1'), new PreparedHeader('X-B', '2'), new PreparedHeader('x-a', '3')];
    app.get('/', (req, res) => res.setPrepared(block).send('x'));
    app.get('/twice', (req, res) => {
      res.setPrepared(block).remove('x-b');
      res.setPrepared(block).send('y');
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(r.headers.get('x-a')).toBe('3');
    expect(r.headers.get('x-b')).toBe('2');
    // The list handed out is not shared: a change on one response leaves the next one whole.
    const twice = await fetch(`${url}/twice`);
    expect(twice.headers.get('x-b')).toBe('2');
    expect((await fetch(url)).headers.get('x-b')).toBe('2');
  });

  it('replaces headers already set and keeps the others', async () => {
    const app = server();
    const block = [new PreparedHeader('X-A', 'new'), new PreparedHeader('X-C', 'c')];
    app.get('/', (req, res) => res.set('x-a', 'old').set('x-keep', 'k').setPrepared(block).send('x'));
    const { url } = await start(app);
    const r = await fetch(url);
    expect([r.headers.get('x-a'), r.headers.get('x-keep'), r.headers.get('x-c')]).toEqual(['new', 'k', 'c']);
  });
});
