import { parseResponses, raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

describe('req.is / req.accepts*', () => {
  it('matches the Content-Type, and is null without a body', async () => {
    const app = server();
    app.post('/', async (req, res) => {
      const result = { json: req.is('json'), list: req.is(['html', 'application/*']), text: req.is('text/*'), none: req.is('png') };
      await req.text();
      res.json(result);
    });
    app.get('/', (req, res) => res.json({ noBody: req.is('json') }));
    const { url } = await start(app);
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' });
    expect(await r.json()).toEqual({ json: 'json', list: 'application/json', text: false, none: false });
    expect(await (await fetch(url, { headers: { 'content-type': 'application/json' } })).json()).toEqual({ noBody: null });
  });

  it('negotiates types, encodings, charsets and languages by quality', async () => {
    const app = server();
    app.get('/', (req, res) =>
      res.json({
        type: req.accepts('html', 'json'),
        list: req.accepts(['text', 'png']),
        all: req.accepts(),
        encoding: req.acceptsEncodings('gzip', 'br'),
        charset: req.acceptsCharsets('iso-8859-1', 'utf-8'),
        language: req.acceptsLanguages(['fr', 'en']),
      }),
    );
    const { url } = await start(app);
    const r = await fetch(url, {
      headers: {
        accept: 'application/json, text/html;q=0.5',
        'accept-encoding': 'br;q=0.9, gzip;q=0.1',
        'accept-charset': 'utf-8',
        'accept-language': 'en;q=0.8, fr;q=0.9',
      },
    });
    expect(await r.json()).toEqual({
      type: 'json',
      list: false,
      all: ['application/json', 'text/html'],
      encoding: 'br',
      charset: 'utf-8',
      language: 'fr',
    });
  });
});

describe('req.fresh / stale', () => {
  it('answers 304 when the ETag or Last-Modified matches, and is stale otherwise', async () => {
    const app = server();
    app.get('/doc', (req, res) => {
      res.set({ etag: '"v1"', 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' });
      if (req.fresh) return res.sendStatus(304);
      res.send(`stale=${req.stale}`);
    });
    app.post('/doc', (req, res) => res.send(`fresh=${req.fresh}`));
    const { port } = await start(app);
    // Raw requests: fetch adds Cache-Control: no-cache to conditional requests, which makes nothing fresh.
    const ask = async (head: string) => parseResponses((await raw(port, `${head}\r\nHost: x\r\n\r\n`)).text)[0]!;
    expect((await ask('GET /doc HTTP/1.1\r\nIf-None-Match: "v1"')).status).toBe(304);
    expect((await ask('GET /doc HTTP/1.1\r\nIf-Modified-Since: Tue, 02 Jan 2024 00:00:00 GMT')).status).toBe(304);
    expect((await ask('GET /doc HTTP/1.1\r\nIf-None-Match: "v1"\r\nCache-Control: no-cache')).body).toBe('stale=true');
    expect((await ask('GET /doc HTTP/1.1\r\nIf-None-Match: "v0"')).body).toBe('stale=true');
    expect((await ask('POST /doc HTTP/1.1\r\nIf-None-Match: "v1"\r\nContent-Length: 0')).body).toBe('fresh=false');
  });
});

describe('res.vary', () => {
  it('adds Vary fields once', async () => {
    const app = server();
    app.get('/vary', (req, res) => res.vary('Accept').vary(['accept', 'Origin']).send('ok'));
    const { url } = await start(app);
    expect((await fetch(`${url}/vary`)).headers.get('vary')).toBe('Accept, Origin');
  });
});
