// req.json() parses only a JSON media type. A browser sends `text/plain`,
// `application/x-www-form-urlencoded` and `multipart/form-data` cross-site without a CORS
// preflight, so a JSON route that parsed those would take a forged form post.
import { parseResponses, raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, isJsonType } from '../../src/index.ts';
import { server } from '../helpers.ts';

async function jsonApp(options?: { anyType: boolean }) {
  const app = server();
  const parsed: unknown[] = [];
  app.post('/json', async (req, res) => {
    const body = await req.json(options);
    parsed.push(body);
    res.json(body);
  });
  app.get('/ok', (req, res) => res.send('ok'));
  return { parsed, ...(await start(app)) };
}

const send = (url: string, body: string, type?: string) =>
  fetch(`${url}/json`, { method: 'POST', body: new TextEncoder().encode(body), headers: type === undefined ? {} : { 'content-type': type } });

describe('req.json() media type', () => {
  it('parses application/json, with or without parameters, in any case', async () => {
    const { url } = await jsonApp();
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'Application/JSON; Charset="utf-8"',
      ' application/json ',
    ]) {
      const r = await send(url, '{"a":1}', type);
      expect([type, r.status, await r.json()]).toEqual([type, 200, { a: 1 }]);
    }
  });

  it('parses +json types (application/problem+json, application/vnd.api+json)', async () => {
    const { url } = await jsonApp();
    for (const type of ['application/problem+json', 'application/vnd.api+json; ext=bulk', 'application/merge-patch+json']) {
      const r = await send(url, '[1,2]', type);
      expect([type, r.status, await r.json()]).toEqual([type, 200, [1, 2]]);
    }
  });

  it('answers 415 to a cross-site form post of valid JSON as text/plain, before the handler sees a value', async () => {
    const { url, parsed } = await jsonApp();
    // What a browser sends for <form enctype="text/plain"> or fetch(url, { mode: 'no-cors', body: string }).
    const r = await fetch(`${url}/json`, {
      method: 'POST',
      body: '{"admin":true}',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://evil.example' },
    });
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({
      statusCode: 415,
      code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
      message: 'Expected a JSON body with Content-Type: application/json, got "text/plain;charset=UTF-8"',
    });
    expect(parsed).toEqual([]);
  });

  it('checks the first Content-Type line of a request that sends two (raw bytes)', async () => {
    const { port, parsed } = await jsonApp();
    const request = (first: string, second: string) =>
      `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: ${first}\r\nContent-Length: 7\r\nContent-Type: ${second}\r\nConnection: close\r\n\r\n{"a":1}`;
    const [refused] = parseResponses((await raw(port, request('text/plain', 'application/json'))).text);
    expect(refused!.status).toBe(415);
    const [taken] = parseResponses((await raw(port, request('application/json', 'text/plain'))).text);
    expect([taken!.status, JSON.parse(taken!.body)]).toEqual([200, { a: 1 }]);
    expect(parsed).toEqual([{ a: 1 }]);
  });

  it('reads the type from req.headers when a middleware changed it there, also after the body started', async () => {
    const app = server();
    // The body starts when the middleware goes async (its headers are copied then); the type is
    // changed after that, and json() must see the change.
    app.use(async (req, _res, next) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (req.get('x-legacy-client') === '1') req.headers['content-type'] = 'application/json';
      next();
    });
    app.post('/json', async (req, res) => res.json(await req.json()));
    const { url } = await start(app);
    const post = (legacy: boolean) =>
      fetch(`${url}/json`, {
        method: 'POST',
        body: '{"b":2}',
        headers: { 'content-type': 'text/plain', ...(legacy ? { 'x-legacy-client': '1' } : {}) },
      });
    const legacy = await post(true);
    expect([legacy.status, await legacy.json()]).toEqual([200, { b: 2 }]);
    const other = await post(false);
    expect(other.status).toBe(415);
    await other.text();
  });

  it('answers 415 to the other types a form can send without a preflight', async () => {
    const { url, parsed } = await jsonApp();
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await send(url, '{"a":1}', type);
      expect([type, r.status]).toEqual([type, 415]);
    }
    expect(parsed).toEqual([]);
  });

  it('answers 415 to types that only look like JSON', async () => {
    const { url, parsed } = await jsonApp();
    for (const type of ['text/json', 'application/jsonx', 'application/json-seq', 'application/x-json', 'json', 'application/json+xml']) {
      const r = await send(url, '{"a":1}', type);
      expect([type, r.status, ((await r.json()) as { code: string }).code]).toEqual([type, 415, ErrorCodes.UNSUPPORTED_MEDIA_TYPE]);
    }
    expect(parsed).toEqual([]);
  });

  it('answers 415 to a JSON body sent without a Content-Type', async () => {
    const { port, parsed } = await jsonApp();
    const { text } = await raw(port, 'POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"a":1}');
    const [response] = parseResponses(text);
    expect(response?.status).toBe(415);
    expect(JSON.parse(response!.body)).toMatchObject({
      code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
      message: 'Expected a JSON body with Content-Type: application/json, got no Content-Type',
    });
    expect(parsed).toEqual([]);
  });

  it('answers 415 to an empty Content-Type', async () => {
    const { port } = await jsonApp();
    const { text } = await raw(port, 'POST /json HTTP/1.1\r\nHost: x\r\nContent-Type:\r\nContent-Length: 7\r\n\r\n{"a":1}');
    expect(parseResponses(text)[0]?.status).toBe(415);
  });

  it('keeps the connection open after a 415 and serves the next request on it', async () => {
    const { port } = await jsonApp();
    const { text, closed } = await raw(
      port,
      'POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\n{"a":1}GET /ok HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(parseResponses(text).map((r) => [r.status, r.body])).toEqual([
      [415, expect.stringContaining(ErrorCodes.UNSUPPORTED_MEDIA_TYPE)],
      [200, 'ok'],
    ]);
    expect(closed).toBe(false);
  });

  it('still answers 400 to an empty body, whatever its type', async () => {
    const { url } = await jsonApp();
    const r = await fetch(`${url}/json`, { method: 'POST', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe(ErrorCodes.BAD_JSON);
  });

  it('parses any type, or none, with { anyType: true }', async () => {
    const { url, port } = await jsonApp({ anyType: true });
    const r = await send(url, '{"beacon":1}', 'text/plain;charset=UTF-8');
    expect([r.status, await r.json()]).toEqual([200, { beacon: 1 }]);
    const { text } = await raw(port, 'POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{"a":1}');
    expect(parseResponses(text).map((x) => [x.status, x.body])).toEqual([[200, '{"a":1}']]);
  });

  it('leaves text(), buffer() and urlencoded() alone: they read any type', async () => {
    const app = server();
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { url } = await start(app);
    const r = await fetch(`${url}/text`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/octet-stream' } });
    expect(await r.text()).toBe('{"a":1}');
  });
});

describe('isJsonType', () => {
  it('accepts application/json and +json types with any parameters, in any case', () => {
    for (const type of ['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/ld+json', '\tapplication/json\t;x=1']) {
      expect([type, isJsonType(type)]).toEqual([type, true]);
    }
  });

  it('refuses other types, a missing value and malformed ones', () => {
    for (const type of [undefined, '', 'text/plain', 'application/jsonp', 'text/json', 'application', 'application/ json', 'a/b c+json', '/+json']) {
      expect([type, isJsonType(type)]).toEqual([type, false]);
    }
  });
});
