import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { definePlaceholder, ErrorCodes, isPlaceholder, Request, Response, type VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

const kOnlyA = Symbol('test.onlyA');

/** A member as a plain JavaScript caller sees it (not through augmented types). */
type Loose = Record<PropertyKey, any>;

/** What a handler saw of the decorations, as JSON. */
function report(req: Request, res: Response) {
  const r = req as unknown as Loose;
  const s = res as unknown as Loose;
  return {
    requestIsRequest: req instanceof Request,
    responseIsResponse: res instanceof Response,
    hasWho: 'testWho' in r,
    who: typeof r.testWho === 'function' ? r.testWho() : null,
    symbol: r[kOnlyA] ?? null,
    hasSymbol: kOnlyA in r,
    hasShout: 'testShout' in s,
  };
}

describe('decorations belong to one server', () => {
  it("keeps one server's request and response decorations (string and symbol keys) from another server in the same process", async () => {
    const a = server();
    const b = server();
    a.decorateRequest('testWho', {
      value(this: Request) {
        return `a:${this.path}`;
      },
    });
    a.decorateRequest(kOnlyA, { get: () => 'symbol of a' });
    a.decorateResponse('testShout', {
      value(this: Response, text: string) {
        this.send(text.toUpperCase());
      },
    });
    for (const app of [a, b]) app.get('/seen', (req, res) => res.json(report(req, res)));
    a.get('/shout', (req, res) => (res as unknown as Loose).testShout('hi'));
    b.get('/shout', (req, res) => (res as unknown as Loose).testShout('hi'));
    const [ua, ub] = await Promise.all([start(a), start(b)]);
    expect(await (await fetch(`${ua.url}/seen`)).json()).toEqual({
      requestIsRequest: true,
      responseIsResponse: true,
      hasWho: true,
      who: 'a:/seen',
      symbol: 'symbol of a',
      hasSymbol: true,
      hasShout: true,
    });
    expect(await (await fetch(`${ub.url}/seen`)).json()).toEqual({
      requestIsRequest: true,
      responseIsResponse: true,
      hasWho: false,
      who: null,
      symbol: null,
      hasSymbol: false,
      hasShout: false,
    });
    expect(await (await fetch(`${ua.url}/shout`)).text()).toBe('HI');
    // On b, res.testShout does not exist: the handler's TypeError goes to the error path (500).
    expect((await fetch(`${ub.url}/shout`)).status).toBe(500);
    // Neither core's Request nor Response prototype got them.
    expect('testWho' in Request.prototype || kOnlyA in Request.prototype || 'testShout' in Response.prototype).toBe(false);
  });

  it('lets two servers decorate the same name with different definitions, each seeing its own', async () => {
    const a = server();
    const b = server();
    a.decorateRequest('testFlavour', { value: 'apple' });
    b.decorateRequest('testFlavour', { value: 'banana' });
    a.decorateResponse(kOnlyA, { value: 'response of a' });
    b.decorateResponse(kOnlyA, { value: 'response of b' });
    for (const app of [a, b]) app.get('/', (req, res) => res.send(`${(req as unknown as Loose).testFlavour} ${(res as unknown as Loose)[kOnlyA]}`));
    const [ua, ub] = await Promise.all([start(a), start(b)]);
    expect(await (await fetch(ua.url)).text()).toBe('apple response of a');
    expect(await (await fetch(ub.url)).text()).toBe('banana response of b');
  });

  it('keeps a placeholder on the servers whose plugin did not decorate it: they answer VELOX_ERR_PLUGIN_MISSING', async () => {
    definePlaceholder('response', 'testPerServer', { plugin: 'perServer', from: 'per-server-plugin' });
    const a = server();
    const b = server();
    a.decorateResponse('testPerServer', {
      value(this: Response) {
        this.send('from the plugin');
      },
    });
    expect([isPlaceholder('response', 'testPerServer', a), isPlaceholder('response', 'testPerServer', b)]).toEqual([false, true]);
    expect(isPlaceholder('response', 'testPerServer')).toBe(true);
    const seen: VeloxError[] = [];
    b.setErrorHandler((err, req, res) => {
      seen.push(err as VeloxError);
      res.status(500).send('missing');
    });
    for (const app of [a, b]) app.get('/', (req, res) => (res as unknown as Loose).testPerServer());
    const [ua, ub] = await Promise.all([start(a), start(b)]);
    expect(await (await fetch(ua.url)).text()).toBe('from the plugin');
    expect((await fetch(ub.url)).status).toBe(500);
    expect(seen.map((err) => [err.code, err.message])).toEqual([
      [ErrorCodes.PLUGIN_MISSING, "res.testPerServer() needs the perServer plugin of per-server-plugin: import { perServer } from 'per-server-plugin'; await app.register(perServer)"],
    ]);
  });

  it('refuses something other than a Server as the third argument of isPlaceholder()', () => {
    expect(() => isPlaceholder('request', 'on', {} as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
  });
});

describe('server.prototypes and setInstancePrototypes()', () => {
  it("builds requests and responses onto a framework's own prototypes, under which the server's decorations (even later ones) still show", async () => {
    const a = server();
    const b = server();
    const request = Object.create(a.prototypes.request, {
      layer: { value: 'framework request', enumerable: true },
    });
    const response = Object.create(a.prototypes.response, {
      answer: {
        value(this: Response, text: string) {
          this.send(`framework says ${text}`);
        },
      },
    });
    expect(a.setInstancePrototypes({ request, response })).toBe(a);
    // A decoration after the switch goes on the server's prototype, beneath the framework's.
    a.decorateRequest('testLater', { get: () => 'later' });
    for (const app of [a, b]) {
      app.get('/', (req, res) => {
        const r = req as unknown as Loose;
        const s = res as unknown as Loose;
        const seen = {
          onRequestPrototype: request.isPrototypeOf(req),
          onResponsePrototype: response.isPrototypeOf(res),
          layer: r.layer ?? null,
          later: r.testLater ?? null,
          isRequest: req instanceof Request,
          isResponse: res instanceof Response,
          path: req.path,
        };
        if (typeof s.answer === 'function') s.answer(JSON.stringify(seen));
        else res.send(`plain ${JSON.stringify(seen)}`);
      });
    }
    const [ua, ub] = await Promise.all([start(a), start(b)]);
    const seenA = { onRequestPrototype: true, onResponsePrototype: true, layer: 'framework request', later: 'later', isRequest: true, isResponse: true, path: '/' };
    // Every request of the server, not only the first.
    for (let i = 0; i < 3; i++) expect(await (await fetch(ua.url)).text()).toBe(`framework says ${JSON.stringify(seenA)}`);
    const seenB = { onRequestPrototype: false, onResponsePrototype: false, layer: null, later: null, isRequest: true, isResponse: true, path: '/' };
    expect(await (await fetch(ub.url)).text()).toBe(`plain ${JSON.stringify(seenB)}`);
  });

  it("refuses a prototype that does not inherit from the server's own (VELOX_ERR_INVALID_OPTION), and keeps building as before", async () => {
    const a = server();
    const b = server();
    expect(() => a.setInstancePrototypes({ request: Object.create(b.prototypes.request) })).toThrow(
      expect.objectContaining({ code: ErrorCodes.INVALID_OPTION, message: expect.stringContaining('server.prototypes.request') }),
    );
    expect(() => a.setInstancePrototypes({ response: {} })).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    a.get('/', (req, res) => res.send(String(Object.getPrototypeOf(req) === a.prototypes.request)));
    const ua = await start(a);
    expect(await (await fetch(ua.url)).text()).toBe('true');
  });
});
