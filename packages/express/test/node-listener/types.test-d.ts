import { createServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type supertest from 'supertest';
import { describe, expectTypeOf, it } from 'vitest';
import type express5 from '../../src/five.ts';
import type express from '../../src/index.ts';
import type { ListeningServer } from '../../src/index.ts';

const app = null as unknown as ReturnType<typeof express>;
const app5 = null as unknown as ReturnType<typeof express5>;

describe('an app as a Node request listener', () => {
  it('is a RequestListener for http.createServer, https.createServer and supertest', () => {
    expectTypeOf(app).toMatchTypeOf<RequestListener>();
    expectTypeOf(app5).toMatchTypeOf<RequestListener>();
    expectTypeOf(createServer).toBeCallableWith(app);
    expectTypeOf(createHttpsServer).toBeCallableWith({}, app5);
    expectTypeOf<typeof supertest>().toBeCallableWith(app);
  });

  it('returns from listen() a server that can listen again', () => {
    expectTypeOf<ListeningServer['listen']>().toEqualTypeOf<(...args: unknown[]) => ListeningServer>();
  });
});
