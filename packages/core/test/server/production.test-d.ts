import { describe, expectTypeOf, it } from 'vitest';
import type { ListenInfo, Server, UncaughtOrigin } from '../../src/index.ts';

describe('listen() types', () => {
  const app = null as unknown as Server;

  it('resolves to ListenInfo in every form', () => {
    expectTypeOf(app.listen(3000)).toEqualTypeOf<Promise<ListenInfo>>();
    expectTypeOf(app.listen(3000, '0.0.0.0', { reusePort: true })).toEqualTypeOf<Promise<ListenInfo>>();
    expectTypeOf(app.listen(3000, { reusePort: true })).toEqualTypeOf<Promise<ListenInfo>>();
    expectTypeOf(app.listen('/run/app.sock')).toEqualTypeOf<Promise<ListenInfo>>();
  });

  it('types the Express-form callback argument as ListenInfo', () => {
    app.listen(3000, (info) => expectTypeOf(info).toEqualTypeOf<ListenInfo>());
    app.listen(3000, '127.0.0.1', (info) => expectTypeOf(info.port).toEqualTypeOf<number>());
  });

  it('refuses unknown options and a callback taking an error first', () => {
    // @ts-expect-error: not an option of listen()
    app.listen(3000, '0.0.0.0', { exclusive: true });
    // @ts-expect-error: the callback gets the listen info, never an error
    app.listen(3000, (err: Error, info: ListenInfo) => console.log(err, info));
  });
});

describe('closeOnSignals() types', () => {
  const app = null as unknown as Server;

  it('returns the uninstall function', () => {
    expectTypeOf(app.closeOnSignals()).toEqualTypeOf<() => void>();
  });

  it('takes a policy function, sync or async, returning a policy or nothing', () => {
    app.closeOnSignals({
      uncaught: (error, origin) => {
        expectTypeOf(error).toEqualTypeOf<unknown>();
        expectTypeOf(origin).toEqualTypeOf<UncaughtOrigin>();
        return 'log';
      },
    });
    app.closeOnSignals({ uncaught: async () => {} });
    app.closeOnSignals({ uncaught: async () => 'exit' as const });
    app.closeOnSignals({ uncaught: () => {} });
    // @ts-expect-error: not a policy
    app.closeOnSignals({ uncaught: 'restart' });
    // @ts-expect-error: not a signal name
    app.closeOnSignals({ signals: ['SIGNOPE'] });
  });
});
