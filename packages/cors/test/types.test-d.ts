import { type Middleware, type Request, Server } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import { type CorsErrorCode, CorsErrorCodes, type CorsOptions, cors, type OriginFunction, type OriginResult, type StaticOrigin } from '../src/index.ts';

describe('cors() types', () => {
  it('returns a Middleware that use() and route methods take', () => {
    expectTypeOf(cors()).toEqualTypeOf<Middleware>();
    const app = new Server();
    app.use(cors({ origin: ['https://app.example.com', /\.trusted\.example$/], credentials: true, exposedHeaders: ['x-total'], maxAge: 600 }));
    app.use('/api', cors());
    app.get('/x/:id', cors({ origin: 'https://a.example' }), (req, res) => res.send(req.params.id));
  });

  it('types the origin function: the origin as a string, the request, a result or a promise of one', () => {
    expectTypeOf<OriginFunction>().parameters.toEqualTypeOf<[string, Request<unknown, unknown>]>();
    cors({ origin: (origin) => origin.endsWith('.example.com') });
    cors({ origin: async (origin, req) => (req.get('x-tenant') ? [origin] : false) });
    cors({ origin: () => /x/ });
    cors({ origin: () => undefined });
    // @ts-expect-error a number is no origin setting
    cors({ origin: () => 3 });
    // @ts-expect-error Express-style callbacks are not taken
    cors({ origin: (origin: string, callback: (err: Error | null, allow?: boolean) => void) => callback(null, true) });
  });

  it('takes the option types the cors package and @fastify/cors use', () => {
    expectTypeOf<StaticOrigin>().toEqualTypeOf<boolean | string | RegExp | ReadonlyArray<string | RegExp>>();
    expectTypeOf<OriginResult>().toEqualTypeOf<StaticOrigin | null | undefined>();
    const options: CorsOptions = { methods: 'GET,POST', allowedHeaders: ['a'], headers: 'b', exposedHeaders: 'c', optionsSuccessStatus: 200, cacheControl: 60, strictPreflight: false, preflightContinue: true };
    expectTypeOf(options.maxAge).toEqualTypeOf<number | undefined>();
    // @ts-expect-error credentials is a boolean
    cors({ credentials: 'true' });
  });

  it('types the error codes as literals', () => {
    expectTypeOf(CorsErrorCodes.INVALID_OPTION).toEqualTypeOf<'VELOX_ERR_CORS_INVALID_OPTION'>();
    expectTypeOf<CorsErrorCode>().toEqualTypeOf<'VELOX_ERR_CORS_INVALID_OPTION' | 'VELOX_ERR_CORS_BAD_PREFLIGHT' | 'VELOX_ERR_CORS_BAD_ORIGIN_RESULT'>();
  });
});
