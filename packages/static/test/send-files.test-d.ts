import { describe, expectTypeOf, it } from 'vitest';
import type { Server } from '@velox/core';
import type { SendFileCallback, SendFileOptions } from '../src/index.ts';

const app = null as unknown as Server;

describe('res.sendFile and res.download, as typed', () => {
  it("take Express's argument forms and return a promise of nothing", () => {
    app.get('/f', (req, res) => {
      expectTypeOf(res.sendFile('/srv/a.txt')).toEqualTypeOf<Promise<void>>();
      expectTypeOf(res.sendFile('a.txt', { root: '/srv', maxAge: '1d', dotfiles: 'deny' })).toEqualTypeOf<Promise<void>>();
      res.sendFile('/srv/a.txt', (err) => expectTypeOf(err).toEqualTypeOf<Error | undefined>());
      res.sendFile('/srv/a.txt', { headers: { 'x-count': 2 } }, (err) => void err);
      expectTypeOf(res.download('/srv/a.txt')).toEqualTypeOf<Promise<void>>();
      res.download('/srv/a.txt', 'b.txt');
      res.download('/srv/a.txt', 'b.txt', (err) => void err);
      res.download('/srv/a.txt', 'b.txt', { maxAge: 1000 }, (err) => void err);
      res.download('a.txt', { root: '/srv' });
      res.download('a.txt', { root: '/srv' }, (err) => void err);
      res.download('/srv/a.txt', null, { immutable: true });
      res.download('/srv/a.txt', (err) => void err);
      // @ts-expect-error dotfiles is one of 'ignore' | 'deny' | 'allow'
      res.sendFile('/srv/a.txt', { dotfiles: 'hide' });
      // @ts-expect-error the path is a string
      res.sendFile(42);
    });
  });

  it('exports the option and callback types', () => {
    expectTypeOf<SendFileOptions['maxAge']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<SendFileCallback>().toEqualTypeOf<(err?: Error) => void>();
  });
});
