import { describe, expectTypeOf, it } from 'vitest';
import express, { type Application, type ListeningServer, type Router } from '../../src/index.ts';

describe('express(), as typed', () => {
  it('types the app, its routers and what listen() returns', () => {
    const app = express();
    expectTypeOf(app).toEqualTypeOf<Application>();
    expectTypeOf(app.set('x', 1)).toEqualTypeOf<Application>();
    expectTypeOf(app.enabled('x')).toEqualTypeOf<boolean>();
    expectTypeOf(express.Router()).toEqualTypeOf<Router>();
    const server = app.listen(0);
    expectTypeOf(server).toEqualTypeOf<ListeningServer>();
    expectTypeOf(server.address()).toEqualTypeOf<{ address: string; family: string; port: number } | null>();
    expectTypeOf(server.close).parameter(0).toEqualTypeOf<((err?: Error) => void) | undefined>();
    expectTypeOf(express.json).toBeFunction();
    expectTypeOf(express.static).toBeFunction();
  });
});
