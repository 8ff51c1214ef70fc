import { describe, expectTypeOf, it } from 'vitest';
import type { InjectInit, Server } from '../../src/index.ts';

describe('app.inject() types', () => {
  it('takes what fetch() takes, plus target, and resolves with a WHATWG Response', () => {
    const app = null as unknown as Server;
    expectTypeOf(app.inject('/users/1')).toEqualTypeOf<Promise<globalThis.Response>>();
    expectTypeOf(app.inject).toBeCallableWith(new URL('http://localhost/x'));
    expectTypeOf(app.inject).toBeCallableWith(new globalThis.Request('http://localhost/x'), { method: 'POST', body: 'x' });
    expectTypeOf(app.inject).toBeCallableWith('/x', { target: '/a/../b', signal: AbortSignal.timeout(1000) });
    expectTypeOf<InjectInit>().toMatchTypeOf<RequestInit>();
    expectTypeOf<InjectInit['target']>().toEqualTypeOf<string | undefined>();
    // @ts-expect-error: a number is no input
    void app.inject(42);
  });
});
