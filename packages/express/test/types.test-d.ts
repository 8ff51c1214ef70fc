import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expectTypeOf, it } from 'vitest';
import type { ErrorMiddleware, Request, Response, Server } from '@velox/core';
import type { ExpressApp, NodeSocket } from '../src/index.ts';
import express5, { type Application5, type Express5, type ListeningServer, type Router5 } from '../src/five.ts';

const app = null as unknown as Server;

describe('the Node/Express surface, as typed', () => {
  it('types the request members middlewares read', () => {
    app.post('/x', (req, res) => {
      expectTypeOf(req.body).toEqualTypeOf<unknown>();
      expectTypeOf(req.originalUrl).toEqualTypeOf<string>();
      expectTypeOf(req.baseUrl).toEqualTypeOf<string>();
      expectTypeOf(req.socket).toEqualTypeOf<NodeSocket>();
      expectTypeOf(req.socket.remoteAddress).toEqualTypeOf<string>();
      expectTypeOf(req.app).toEqualTypeOf<ExpressApp>();
      expectTypeOf(req.app.get('trust proxy')).toEqualTypeOf<unknown>();
      expectTypeOf(req.is('json')).toEqualTypeOf<string | false | null>();
      expectTypeOf(req.accepts('html', 'json')).toEqualTypeOf<string | false | string[]>();
      expectTypeOf(req.fresh).toEqualTypeOf<boolean>();
      expectTypeOf(req.on('data', () => {})).toEqualTypeOf<typeof req>();
      expectTypeOf(res.vary('Accept')).toEqualTypeOf<Response>();
      expectTypeOf(res.headersSent).toEqualTypeOf<boolean>();
      res.send('ok');
    });
  });

  it('takes Express error middlewares with four arguments in use()', () => {
    app.use((err, req, res, next) => {
      expectTypeOf(next).parameter(0).toEqualTypeOf<unknown>();
      res.status(500).send(String(err));
    });
    const typed: ErrorMiddleware = (err, req, res, next) => {
      expectTypeOf(req).toEqualTypeOf<Request>();
      next(err);
    };
    app.use('/api', typed);
  });

  it('lets a Response be the destination of pipe() and pipeline()', () => {
    const res = null as unknown as Response;
    Readable.from(['a']).pipe(res);
    void pipeline(Readable.from(['a']), res);
  });

  it('types the Express 5 entry: express(), app.router, express.Router(), listen()', () => {
    expectTypeOf(express5).toEqualTypeOf<Express5>();
    const five = express5();
    expectTypeOf(five).toEqualTypeOf<Application5>();
    expectTypeOf(five.router).toEqualTypeOf<Router5>();
    expectTypeOf(express5.Router()).toEqualTypeOf<Router5>();
    expectTypeOf(five.listen(0)).toEqualTypeOf<ListeningServer>();
    expectTypeOf(five.param('id', (_req, _res, next) => next())).toEqualTypeOf<Application5>();

  });
});
