import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, type Plugin, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

describe('app.inject() and the server lifecycle', () => {
  it('gets the server ready first, as listen() does: async plugins awaited, routes mounted', async () => {
    const app = server();
    const slow: Plugin = async (s) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      s.decorateRequest('greeting', { value: () => 'from the plugin' });
      s.get('/plugin', (req, res) => res.send((req as unknown as { greeting(): string }).greeting()));
    };
    void app.register(slow);
    const res = await app.inject('/plugin');
    expect(await res.text()).toBe('from the plugin');
    // The chains are built now, as after listen().
    expect(() => app.use((req, res, next) => next())).toThrow(/before listen\(\) and the first inject\(\)/);
  });

  it('rejects when a plugin fails to load', async () => {
    const app = server();
    void app
      .register(async () => {
        throw new Error('plugin broke');
      })
      .catch(() => {});
    await expect(app.inject('/')).rejects.toThrow('plugin broke');
  });

  it('runs no onListen hook; listen() runs them', async () => {
    const app = server();
    let listens = 0;
    app.addHook('onListen', () => {
      listens++;
    });
    app.get('/', (req, res) => res.send('hi'));
    await app.inject('/');
    expect(listens).toBe(0);
    await app.listen(0, '127.0.0.1');
    expect(listens).toBe(1);
  });

  it('answers before, during and after listen(), whose state it does not change', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('hi'));
    expect(await (await app.inject('/')).text()).toBe('hi');
    expect(app.listening).toBe(false);
    const { port } = await app.listen(0, '127.0.0.1');
    expect(app.listening).toBe(true);
    expect(await (await app.inject('/')).text()).toBe('hi');
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hi');
    expect(app.listening).toBe(true);
  });

  it('rejects after close() with VELOX_ERR_SERVER_CLOSED, and answers again after the next listen()', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('hi'));
    await app.inject('/');
    await app.close();
    const refused = await app.inject('/').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(VeloxError);
    expect((refused as VeloxError).code).toBe(ErrorCodes.SERVER_CLOSED);
    await app.listen(0, '127.0.0.1');
    expect(await (await app.inject('/')).text()).toBe('hi');
  });

  it('rejects on a server closed before it ever answered', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('hi'));
    await app.close();
    await expect(app.inject('/')).rejects.toMatchObject({ code: ErrorCodes.SERVER_CLOSED });
  });

  it('close() runs the onClose hooks of a server that only injected, and lets an inject in flight finish', async () => {
    const app = server();
    let closes = 0;
    app.addHook('onClose', () => {
      closes++;
    });
    let started!: () => void;
    const inHandler = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async (req, res) => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 100));
      res.send('finished');
    });
    const answer = app.inject('/slow');
    await inHandler;
    await app.close({ timeout: 5000 });
    expect(closes).toBe(1);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('finished');
  });

  it('leaves nothing open after close(): the process that injected and closed exits on its own, at once', async () => {
    const child = run(new URL('./fixtures/inject-exit.ts', import.meta.url), { CLOSE: '1' });
    expect(await exitCode(child, 20_000)).toBe(0);
    expect(child.stdout()).toMatch(/^STATUS 200,200,200\nONCLOSE\nDONE\nEXIT \d+\n$/);
    // A listen socket left open would hold the process for ever, an open connection for uWS's
    // idle timeout (10 s).
    expect(Number(/EXIT (\d+)/.exec(child.stdout())![1])).toBeLessThan(5000);
  });

  it('needs no close(): a process that only injected exits on its own, at once', async () => {
    const child = run(new URL('./fixtures/inject-exit.ts', import.meta.url));
    expect(await exitCode(child, 20_000)).toBe(0);
    expect(child.stdout()).toMatch(/^STATUS 200,200,200\nEXIT \d+\n$/);
    expect(Number(/EXIT (\d+)/.exec(child.stdout())![1])).toBeLessThan(5000);
  });

  it('needs no close(): a node:test file that only injects exits on its own once its tests pass', async () => {
    const child = run(new URL('./fixtures/node-test.ts', import.meta.url), {}, { node: ['--test', '--test-reporter=tap'] });
    expect(await exitCode(child, 30_000)).toBe(0);
    expect(child.stdout()).toMatch(/^# pass 4$/m);
    expect(child.stdout()).toMatch(/^# fail 0$/m);
  }, 40_000);
});
