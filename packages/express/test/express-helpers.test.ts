import { parseResponses, raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ExpressErrorCodes } from '../src/index.ts';
import { server } from './helpers.ts';

describe('req.xhr / range / subdomains', () => {
  it('reads X-Requested-With, Range and the subdomains of the Host', async () => {
    const app = server();
    app.get('/', (req, res) =>
      res.json({
        xhr: req.xhr,
        range: req.range(1000, { combine: true }),
        type: (req.range(1000) as { type?: string } | undefined)?.type,
        unsatisfiable: req.get('x-bad') ? req.range(10) : null,
        subdomains: req.subdomains,
      }),
    );
    const { url, port } = await start(app);
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: a.b.example.com\r\nX-Requested-With: XMLHttpRequest\r\nRange: bytes=0-9,5-19,-100\r\n\r\n');
    expect(JSON.parse(parseResponses(text)[0]!.body)).toEqual({
      xhr: true,
      range: [
        { start: 0, end: 19 },
        { start: 900, end: 999 },
      ],
      type: 'bytes',
      unsatisfiable: null,
      subdomains: ['b', 'a'],
    });
    const bad = await fetch(url, { headers: { range: 'bytes=500-600', 'x-bad': '1' } });
    expect(((await bad.json()) as { unsatisfiable: number }).unsatisfiable).toBe(-1);
    const none = await fetch(url);
    expect(await none.json()).toEqual({ xhr: false, unsatisfiable: null, subdomains: [] });
  });
});

describe('res.location / attachment', () => {
  it('sets Location (back means the Referer) and marks downloads', async () => {
    const app = server();
    app.get('/back', (req, res) => res.location('back').sendStatus(303));
    app.get('/encoded', (req, res) => res.location('/a b/ü?x=%20').sendStatus(303));
    app.get('/file', (req, res) => res.attachment('reports/März 2024.pdf').send('%PDF'));
    app.get('/plain', (req, res) => res.attachment().send('x'));
    const { url } = await start(app);
    expect((await fetch(`${url}/back`, { redirect: 'manual', headers: { referer: '/from' } })).headers.get('location')).toBe('/from');
    expect((await fetch(`${url}/back`, { redirect: 'manual' })).headers.get('location')).toBe('/');
    expect((await fetch(`${url}/encoded`, { redirect: 'manual' })).headers.get('location')).toBe('/a%20b/%C3%BC?x=%20');
    const file = await fetch(`${url}/file`);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="M?rz 2024.pdf"; filename*=UTF-8''M%C3%A4rz%202024.pdf`);
    expect((await fetch(`${url}/plain`)).headers.get('content-disposition')).toBe('attachment');
  });
});

describe('res.format', () => {
  it('calls the handler of the best accepted type with its Content-Type and Vary: Accept', async () => {
    const app = server();
    app.get('/', (req, res) =>
      res.format({
        'text/plain': () => res.send('text'),
        json: () => res.send(JSON.stringify({ kind: 'json' })),
        html: () => res.send('<b>html</b>'),
      }),
    );
    app.get('/fallback', (req, res) => res.format({ json: () => res.json({}), default: () => res.status(406).send('pick json') }));
    const { url } = await start(app);
    const json = await fetch(url, { headers: { accept: 'application/json' } });
    expect([json.headers.get('content-type'), json.headers.get('vary'), await json.text()]).toEqual([
      'application/json; charset=utf-8',
      'Accept',
      '{"kind":"json"}',
    ]);
    const html = await fetch(url, { headers: { accept: 'text/html' } });
    expect([html.headers.get('content-type'), await html.text()]).toEqual(['text/html; charset=utf-8', '<b>html</b>']);
    const none = await fetch(url, { headers: { accept: 'image/png' } });
    expect(none.status).toBe(406);
    expect(((await none.json()) as { code: string }).code).toBe(ExpressErrorCodes.NOT_ACCEPTABLE);
    const fallback = await fetch(`${url}/fallback`, { headers: { accept: 'image/png' } });
    expect([fallback.status, await fallback.text()]).toEqual([406, 'pick json']);
  });
});
