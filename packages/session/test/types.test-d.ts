import type { Request } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import type { MemoryStore, RedisStore, RedisStoreOptions, Session, SessionStore, SessionValues } from '../src/index.ts';

// Augmentation is global to the compilation: names of their own, so that the other tests' keys stay free-form.
declare module '../src/index.ts' {
  interface SessionData {
    typedVisits: number;
    typedUser: { id: string; name: string };
  }
}

declare const req: Request;

describe('SessionData augmentation', () => {
  it('types req.session', () => {
    expectTypeOf(req.session).toEqualTypeOf<Session>();
    expectTypeOf(req.session.start()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(req.session.id).toEqualTypeOf<string>();
    expectTypeOf(req.session.isNew).toEqualTypeOf<boolean>();
  });

  it('types the values of declared keys, and unknown for the others', () => {
    expectTypeOf(req.session.get('typedVisits')).toEqualTypeOf<number | undefined>();
    expectTypeOf(req.session.get('typedUser')).toEqualTypeOf<{ id: string; name: string } | undefined>();
    expectTypeOf(req.session.get('anything else')).toEqualTypeOf<unknown>();
    const visits = (req.session.get('typedVisits') ?? 0) + 1;
    expectTypeOf(visits).toEqualTypeOf<number>();
  });

  it('checks set() against the declared types', () => {
    req.session.set('typedVisits', 1);
    req.session.set('other', { free: 'form' });
    req.session.set({ typedVisits: 2, typedUser: { id: '1', name: 'ana' }, extra: true });
    // @ts-expect-error typedVisits is a number
    req.session.set('typedVisits', 'one');
    // @ts-expect-error typedUser needs a name
    req.session.set('typedUser', { id: '1' });
    // @ts-expect-error typedVisits is a number
    req.session.set({ typedVisits: 'two' });
    expectTypeOf(req.session.all()).toEqualTypeOf<SessionValues>();
    expectTypeOf(req.session.all().typedVisits).toEqualTypeOf<number | undefined>();
  });

  it('takes the stores as SessionStores', () => {
    expectTypeOf<MemoryStore>().toMatchTypeOf<SessionStore>();
    expectTypeOf<RedisStore>().toMatchTypeOf<SessionStore>();
  });

  it('takes failFast, a boolean, among the RedisStore options', () => {
    expectTypeOf<RedisStoreOptions['failFast']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<{ url: string; failFast: true }>().toMatchTypeOf<RedisStoreOptions>();
    expectTypeOf<{ failFast: 'yes' }>().not.toMatchTypeOf<RedisStoreOptions>();
  });
});
