import { VeloxError } from '@velox/core';
import { thrownBy } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { CorsErrorCodes, type CorsOptions, cors } from '../src/index.ts';

/** What cors(options) throws: a VeloxError with the invalid-option code, whose message says `hint`. */
function refuses(options: unknown, hint: string | RegExp): void {
  const thrown = thrownBy(() => cors(options as CorsOptions));
  expect(thrown, JSON.stringify(options, (k, v) => (v instanceof RegExp ? String(v) : v))).toBeInstanceOf(VeloxError);
  expect((thrown as VeloxError).code).toBe(CorsErrorCodes.INVALID_OPTION);
  expect((thrown as VeloxError).message).toMatch(hint);
}

describe('cors() options, checked when the factory is called', () => {
  it('takes no options, an empty object, and every option at once', () => {
    expect(typeof cors()).toBe('function');
    expect(typeof cors({})).toBe('function');
    expect(
      typeof cors({
        origin: ['https://app.example.com', 'null', 'http://localhost:5173', 'http://[::1]:3000', 'chrome-extension://abcdefghijklmnop', /\.example$/i],
        methods: ['GET', 'POST'],
        allowedHeaders: 'content-type, authorization',
        exposedHeaders: [],
        credentials: true,
        maxAge: 0,
        preflightContinue: false,
        optionsSuccessStatus: 200,
        strictPreflight: false,
        cacheControl: 'public, max-age=300',
      }),
    ).toBe('function');
  });

  it('refuses something that is not an options object', () => {
    refuses('https://app.example.com', /options object/);
    refuses(null, /options object/);
    refuses([], /options object/);
  });

  it('refuses an unknown option, naming the real ones', () => {
    refuses({ orign: '*' }, /no orign option.*origin, methods/);
    refuses({ allowHeaders: ['x'] }, /allowedHeaders/);
  });

  it('refuses the @fastify/cors options that have no place in a middleware, saying what to write', () => {
    refuses({ hook: 'onRequest' }, /no hook option/);
    refuses({ preflight: false }, /preflightContinue: true/);
    refuses({ delegator: () => ({}) }, /pass a function as origin/);
    refuses({ hideOptionsRoute: true }, /adds no OPTIONS route/);
    refuses({ logLevel: 'warn' }, /logLevel/);
  });

  it('refuses an origin of a type it cannot use', () => {
    refuses({ origin: 42 }, /origin must be '\*', true, false/);
    refuses({ origin: {} }, /origin must be/);
    refuses({ origin: [true] }, /origin\[0\] must be an origin string or a RegExp/);
  });

  it('refuses an origin spelled otherwise than browsers send it, giving the right spelling', () => {
    refuses({ origin: 'https://app.example.com/' }, /write "https:\/\/app.example.com"/);
    refuses({ origin: ['https://ok.example', 'https://App.Example.com'] }, /origin\[1\].*write "https:\/\/app.example.com"/);
    refuses({ origin: 'https://app.example.com:443' }, /write "https:\/\/app.example.com"/);
    refuses({ origin: 'http://localhost:5173/app' }, /write "http:\/\/localhost:5173"/);
  });

  it('refuses strings that are not origins', () => {
    refuses({ origin: 'app.example.com' }, /not an origin; write scheme:\/\/host\[:port\]/);
    refuses({ origin: 'javascript:alert(1)' }, /not an origin/);
    refuses({ origin: '' }, /not an origin/);
  });

  it("refuses wildcards in strings and '*' in a list, pointing to a RegExp and to origin: '*'", () => {
    refuses({ origin: 'https://*.example.com' }, /use a RegExp/);
    refuses({ origin: ['https://app.example.com', '*'] }, /'\*' only works alone/);
  });

  it('refuses a global or sticky RegExp (test() would depend on the request before)', () => {
    refuses({ origin: /\.example$/g }, /g flag.*drop the flag/);
    refuses({ origin: [/\.example$/y] }, /y flag/);
  });

  it('refuses methods, allowedHeaders and exposedHeaders that are not lists of names', () => {
    refuses({ methods: 'GET POST' }, /methods: "GET POST" is not a method name/);
    refuses({ methods: 7 }, /methods must be an array of names or a comma-separated string/);
    refuses({ methods: ['GET', ''] }, /not a method name/);
    refuses({ allowedHeaders: ['x-a', 'x b'] }, /allowedHeaders: "x b" is not a header name/);
    refuses({ headers: 'x-a,,x-b' }, /headers: "" is not a header name/);
    refuses({ exposedHeaders: [null] }, /exposedHeaders: null is not a header name/);
    refuses({ exposedHeaders: 'x-a\r\nSet-Cookie: a=b' }, /not a header name/);
  });

  it('refuses allowedHeaders and its alias headers together', () => {
    refuses({ allowedHeaders: ['x-a'], headers: ['x-b'] }, /not both/);
  });

  it("refuses '*' in a list with credentials, where browsers read it as a name", () => {
    refuses({ credentials: true, exposedHeaders: '*' }, /exposedHeaders: with credentials: true/);
    refuses({ credentials: true, methods: ['*'] }, /methods: with credentials/);
    refuses({ credentials: true, allowedHeaders: ['*'] }, /allowedHeaders: with credentials/);
    expect(typeof cors({ exposedHeaders: '*', methods: '*', allowedHeaders: '*' })).toBe('function');
  });

  it('refuses a maxAge that is not a whole number of seconds', () => {
    refuses({ maxAge: -1 }, /maxAge must be a whole number of seconds/);
    refuses({ maxAge: 1.5 }, /maxAge/);
    refuses({ maxAge: '600' }, /maxAge: 600/);
    refuses({ maxAge: Number.POSITIVE_INFINITY }, /maxAge/);
  });

  it('refuses an optionsSuccessStatus that is not a 2xx', () => {
    refuses({ optionsSuccessStatus: 302 }, /optionsSuccessStatus must be a 2xx status/);
    refuses({ optionsSuccessStatus: '204' }, /optionsSuccessStatus/);
    refuses({ optionsSuccessStatus: 204.5 }, /optionsSuccessStatus/);
  });

  it('refuses booleans given as something else', () => {
    refuses({ credentials: 'true' }, /credentials must be true or false; got "true"/);
    refuses({ preflightContinue: 1 }, /preflightContinue must be true or false/);
    refuses({ strictPreflight: 'no' }, /strictPreflight must be true or false/);
  });

  it('refuses a cacheControl that is neither seconds nor a header value', () => {
    refuses({ cacheControl: -5 }, /cacheControl must be a number of seconds/);
    refuses({ cacheControl: '' }, /cacheControl/);
    refuses({ cacheControl: 'max-age=60\r\nX-Injected: 1' }, /cacheControl/);
    refuses({ cacheControl: true }, /cacheControl/);
  });
});
