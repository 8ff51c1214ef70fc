import { VeloxError } from '@velox/core';
import { describeErrorCodes, listen, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { CorsErrorCodes, cors, type OriginFunction } from '../src/index.ts';
import { APP, call, preflight, routes, server } from './helpers.ts';

describeErrorCodes('CorsErrorCodes', CorsErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_CORS_' }, () => {
  it('raises VeloxErrors with the code and status: start-up errors thrown, request errors answered', async () => {
    const thrown = thrownBy(() => cors({ origin: 'https://app.example.com/' }));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect(thrown).toMatchObject({ code: CorsErrorCodes.INVALID_OPTION });

    const caught: unknown[] = [];
    const app = server();
    app.use('/fn', cors({ origin: (() => 3) as unknown as OriginFunction }));
    app.use(cors({ origin: APP }));
    app.get('/fn/data', (req, res) => res.json({}));
    routes(app);
    app.setErrorHandler((err, req, res) => {
      caught.push(err);
      const e = err as VeloxError;
      res.status(e.status).json({ code: e.code, message: e.expose ? e.message : 'hidden' });
    });
    const url = await listen(app);

    const bad = await preflight(`${url}/data`, APP, 'GET POST');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({ code: CorsErrorCodes.BAD_PREFLIGHT, message: 'Invalid CORS preflight: Access-Control-Request-Method is not a method name' });
    expect(caught[0]).toBeInstanceOf(VeloxError);
    expect(caught[0]).toMatchObject({ status: 400, expose: true });

    const r = await call(`${url}/fn/data`, { origin: APP });
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toEqual({ code: CorsErrorCodes.BAD_ORIGIN_RESULT, message: 'hidden' });
    expect(caught[1]).toBeInstanceOf(VeloxError);
    expect(caught[1]).toMatchObject({ status: 500, expose: false, message: expect.stringContaining('returned 3') });
  });
});
