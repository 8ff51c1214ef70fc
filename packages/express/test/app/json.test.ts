// express.json on @velox/express: body-parser 1.x, with its common case read through Velox's
// body reader (src/app/json.ts). Every answer is compared with express@4's, including the errors
// body-parser makes (through an error middleware that shows their fields).
import { describe, expect, it } from 'vitest';
import { jsonReads } from '../../src/app/json.ts';
import { type AnyExpress, both } from './harness.ts';

/** An app that echoes req.body and shows a parser error's fields. */
function echo(options?: Record<string, unknown>) {
  return (ex: AnyExpress) => {
    const app = ex();
    app.use(ex.json(options));
    app.all('/echo', (req: any, res: any) => res.json({ body: req.body === undefined ? '<undefined>' : req.body, type: typeof req.body }));
    app.use((err: any, _req: any, res: any, _next: any) =>
      res.status(err.status ?? 500).json({ message: err.message, type: err.type, status: err.status, body: err.body, expose: err.expose, charset: err.charset, limit: err.limit, length: err.length }),
    );
    return app;
  };
}

const json = (body: string | Buffer, type = 'application/json') => ({ method: 'POST', path: '/echo', headers: { 'content-type': type }, body });

describe('express.json', () => {
  it('parses what body-parser parses, and fails where it fails, with its errors', async () => {
    const pair = await both(echo());
    const before = jsonReads();
    for (const probe of [
      json('{"a":1,"b":[true,null,"é"]}'),
      json('  \n[1,2,3]'),
      json('\uFEFF{"bom":true}'),
      json(''),
      json('{"a":'),
      json('"just a string"'),
      json('true'),
      json('   '),
      json('{bad json}'),
      json('[1,2,]'),
      json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
      json('{"a":1}', 'application/json; charset=utf-8'),
      json('{"a":1}', 'Application/JSON'),
      json('{"a":1}', 'application/json; charset=latin1'),
      json('{"a":1}', 'application/vnd.api+json'),
      json('{"a":1}', 'text/plain'),
      { method: 'POST', path: '/echo', body: '{"a":1}' },
      { method: 'GET', path: '/echo' },
      json(`{"big":"${'x'.repeat(110 * 1024)}"}`),
    ]) {
      await pair.same(probe);
    }
    // Read by Velox: the thirteen typed application/json (utf-8 or no charset) within the limit;
    // the six of them that are not (strict) JSON then went through body-parser for its error.
    expect(jsonReads().quick - before.quick).toBe(13);
    expect(jsonReads().replayed - before.replayed).toBe(6);
  });

  it('takes the options as body-parser does: limit, strict, reviver, type, verify', async () => {
    const reviver = (key: string, value: unknown) => (key === 'n' ? Number(value) * 2 : value);
    const cases: Array<[Record<string, unknown>, ReturnType<typeof json>[]]> = [
      [{ limit: '10b' }, [json('{"a":1}'), json('{"a":12345}')]],
      [{ limit: 20 }, [json('{"a":1}'), json('{"abcdefghijklmnop":1}')]],
      [{ strict: false }, [json('"text"'), json('42'), json('nul')]],
      [{ reviver }, [json('{"n":21}')]],
      [{ type: 'application/json' }, [json('{"t":1}')]],
      [{ type: ['application/json', 'application/*+json'] }, [json('{"t":1}', 'application/vnd.api+json')]],
      [{ verify: (_req: any, _res: any, buf: Buffer) => { if (buf.includes('no')) throw new Error('refused'); } }, [json('{"a":"yes"}'), json('{"a":"no"}')]],
    ];
    for (const [options, probes] of cases) {
      const pair = await both(echo(options));
      for (const probe of probes) await pair.same(probe);
    }
  });

  it('parses a body sent in pieces and a chunked one as express@4 does', async () => {
    const pair = await both(echo());
    const [theirs, ours] = await pair.raw(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n',
    );
    const bodyOf = (text: string) => text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(bodyOf(ours)).toContain('{"body":{"a":1},"type":"object"}');
    expect(bodyOf(theirs)).toContain('{"body":{"a":1},"type":"object"}');
  });

  it('leaves a body already parsed alone (req._body), as body-parser does', async () => {
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.text({ type: 'application/json' }));
      app.use(ex.json());
      app.post('/echo', (req: any, res: any) => res.json({ body: req.body }));
      return app;
    });
    const before = jsonReads().quick;
    await pair.same(json('{"a":1}'));
    expect(jsonReads().quick).toBe(before);
  });
});
