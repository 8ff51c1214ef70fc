import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { definePlaceholder, ErrorCodes, isPlaceholder, missingPlugin, type Request, type Response, type VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A member as a plain JavaScript caller (an Express middleware, say) sees it: not in the types. */
type Loose = Record<string, any>;

/** A server whose error handler answers with the error's code and message, and keeps each error. */
function recording() {
  const app = server();
  const seen: VeloxError[] = [];
  app.setErrorHandler((err, req, res) => {
    seen.push(err as VeloxError);
    res.status((err as VeloxError).status ?? 500).json({ code: (err as VeloxError).code, message: (err as Error).message });
  });
  return { app, seen };
}

describe('placeholders of core (res.sendFile and res.download without @velox/static)', () => {
  it('answers res.sendFile() on a server without the sendFiles plugin with VELOX_ERR_PLUGIN_MISSING, naming the fix', async () => {
    const { app, seen } = recording();
    app.get('/file', (req, res) => (res as unknown as Loose).sendFile('/etc/hostname'));
    app.get('/download', (req, res) => (res as unknown as Loose).download('/etc/hostname', 'name.txt'));
    const { url } = await start(app);
    for (const path of ['/file', '/download']) {
      const r = await fetch(`${url}${path}`);
      expect(r.status, path).toBe(500);
      expect(await r.text(), path).not.toContain('hostname');
    }
    expect(seen.map((err) => [err.code, err.status])).toEqual([
      [ErrorCodes.PLUGIN_MISSING, 500],
      [ErrorCodes.PLUGIN_MISSING, 500],
    ]);
    expect(seen[0]!.message).toBe(
      "res.sendFile() needs the sendFiles plugin of @velox/static: import { sendFiles } from '@velox/static'; await app.register(sendFiles)",
    );
    expect(seen[1]!.message).toContain('res.download() needs the sendFiles plugin');
    expect(seen[0]).not.toBeInstanceOf(TypeError);
  });

  it('the default error handler keeps the message from the client (a 500) but the program sees it', async () => {
    const app = server();
    let caught: unknown;
    app.get('/file', (req, res) => {
      try {
        (res as unknown as Loose).sendFile('/etc/hostname');
      } catch (err) {
        caught = err;
        throw err;
      }
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/file`);
    expect(r.status).toBe(500);
    expect(await r.text()).not.toContain('sendFiles');
    expect((caught as VeloxError).code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect(isPlaceholder('response', 'sendFile')).toBe(true);
    expect(isPlaceholder('response', 'download')).toBe(true);
  });
});

describe('definePlaceholder', () => {
  const fix = { plugin: 'views', from: 'my-views' };

  it('puts a method on every response that throws the missing-plugin error until a plugin decorates it', async () => {
    definePlaceholder('response', 'testRender', fix);
    expect(isPlaceholder('response', 'testRender')).toBe(true);
    const { app, seen } = recording();
    app.get('/', (req, res) => (res as unknown as Loose).testRender('home'));
    const { url } = await start(app);
    const before = await fetch(url);
    expect(before.status).toBe(500);
    expect(seen[0]!.message).toBe("res.testRender() needs the views plugin of my-views: import { views } from 'my-views'; await app.register(views)");
    // The plugin's decoration replaces the placeholder, with no DECORATION_CONFLICT.
    app.decorateResponse('testRender', {
      value(this: Response, name: string) {
        this.send(`rendered ${name}`);
      },
    });
    expect(isPlaceholder('response', 'testRender', app)).toBe(false);
    expect(await (await fetch(url)).text()).toBe('rendered home');
  });

  it('puts a property on every request that throws when read; assigning it gives that request its own value', async () => {
    definePlaceholder('request', 'testApp', { plugin: 'nodeCompat', from: '@velox/express' }, 'property');
    const { app, seen } = recording();
    app.get('/read', (req, res) => res.send(String((req as unknown as Loose).testApp)));
    app.get('/assign', (req, res) => {
      (req as unknown as Loose).testApp = 'mine';
      res.send(String((req as unknown as Loose).testApp));
    });
    const { url } = await start(app);
    expect((await fetch(`${url}/read`)).status).toBe(500);
    expect(seen[0]!.code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect(seen[0]!.message).toBe("req.testApp needs the nodeCompat plugin of @velox/express: import { nodeCompat } from '@velox/express'; await app.register(nodeCompat)");
    expect(await (await fetch(`${url}/assign`)).text()).toBe('mine');
    expect((await fetch(`${url}/read`)).status).toBe(500); // the assignment stayed on that one request
  });

  it("throws a plugin's own error when the fix gives one", async () => {
    definePlaceholder('request', 'testOwnError', { plugin: 'p', from: 'pkg', error: () => Object.assign(new Error('needs p'), { code: 'MY_CODE' }) }, 'property');
    const { app, seen } = recording();
    app.get('/', (req, res) => res.send(String((req as unknown as Loose).testOwnError)));
    const { url } = await start(app);
    expect((await fetch(url)).status).toBe(500);
    expect([seen[0]!.code, seen[0]!.message]).toEqual(['MY_CODE', 'needs p']);
    expect(() => definePlaceholder('request', 'y', { plugin: 'p', from: 'pkg', error: 'nope' as never })).toThrow(/optional error/);
  });

  it("leaves core's own members and decorations alone, and refuses bad arguments", () => {
    definePlaceholder('response', 'json', fix);
    expect(isPlaceholder('response', 'json')).toBe(false);
    const app = server();
    function testShout(this: Request) {
      return 'HEY';
    }
    app.decorateRequest('testShout', { value: testShout });
    definePlaceholder('request', 'testShout', fix);
    expect(isPlaceholder('request', 'testShout', app)).toBe(false);
    expect(() => definePlaceholder('socket' as 'request', 'x', fix)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    expect(() => definePlaceholder('request', '', fix)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    expect(() => definePlaceholder('request', 'x', { plugin: 'p' } as never)).toThrow(/\{ plugin: 'name', from: 'package' \}/);
    expect(() => definePlaceholder('request', 'x', fix, 'field' as 'method')).toThrow(/'method' or a 'property'/);
  });

  it("still refuses a decoration over core's own member (only placeholders may be replaced)", () => {
    const app = server();
    expect(() => app.decorateResponse('status', { value: () => {} })).toThrow(expect.objectContaining({ code: ErrorCodes.DECORATION_CONFLICT }));
  });
});

describe('missingPlugin', () => {
  it('builds the error a plugin throws on a server that did not register it', () => {
    const err = missingPlugin('res.render', { plugin: 'views', from: 'my-views' });
    expect([err.code, err.status, err.expose]).toEqual([ErrorCodes.PLUGIN_MISSING, 500, false]);
    expect(err.message).toBe("res.render() needs the views plugin of my-views: import { views } from 'my-views'; await app.register(views)");
    expect(missingPlugin('req.app', { plugin: 'nodeCompat', from: '@velox/express' }, 'property').message).toMatch(/^req\.app needs/);
  });
});

describe('server.handleError', () => {
  it('sends an error from outside the middleware chain through the onError hooks and the error handler', async () => {
    const { app, seen } = recording();
    const hooked: string[] = [];
    app.addHook('onError', (err) => {
      hooked.push((err as VeloxError).code);
    });
    app.get('/later', (req, res) => {
      setTimeout(() => app.handleError(missingPlugin('res.later', { plugin: 'later', from: 'later-pkg' }), req, res), 5);
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/later`);
    expect(r.status).toBe(500);
    expect(((await r.json()) as { code: string }).code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect(hooked).toEqual([ErrorCodes.PLUGIN_MISSING]);
    expect(seen).toHaveLength(1);
  });
});
