import pino from 'pino';
import { describe, expectTypeOf, it } from 'vitest';
import { type Request, type RequestLogger, Server, type ServerOptions } from '../../src/index.ts';

describe('request logging types', () => {
  it('types req.log as a pino-style logger and req.id as an optional string', () => {
    const app = new Server({ logger: false });
    app.get('/', (req, res) => {
      expectTypeOf(req.log).toEqualTypeOf<RequestLogger>();
      expectTypeOf(req.log.child({ a: 1 })).toEqualTypeOf<RequestLogger>();
      expectTypeOf(req.id).toEqualTypeOf<string | undefined>();
      res.send('ok');
    });
  });

  it('takes true, false, console or a pino logger, and a genReqId of the request', () => {
    expectTypeOf<{ logger: true }>().toExtend<ServerOptions>();
    expectTypeOf<{ logger: false }>().toExtend<ServerOptions>();
    expectTypeOf({ logger: console }).toExtend<ServerOptions>();
    expectTypeOf({ logger: pino() }).toExtend<ServerOptions>();
    expectTypeOf<{ logger: 'pino' }>().not.toExtend<ServerOptions>();
    expectTypeOf<NonNullable<ServerOptions['genReqId']>>().toEqualTypeOf<(req: Request) => string>();
  });
});
