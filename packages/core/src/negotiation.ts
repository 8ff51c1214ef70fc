/**
 * The HTTP helpers every framework has, on Request and Response: `req.is` (which type the body
 * is), `req.accepts*` (content negotiation), `req.fresh`/`stale` (conditional GET) and
 * `res.vary`. Defined on the prototypes, run only when called; the libraries behind them are
 * imported in express-libs.ts. Express's own helpers (`req.xhr`, `req.range`, `res.format`…)
 * are in `@velox/express`.
 */
import { addVary, isFresh, negotiate, typeOfBody } from './express-libs.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';

function flat(args: Array<string | string[]>): string[] {
  return args.length === 1 && Array.isArray(args[0]) ? args[0] : (args.flat() as string[]);
}

const requestMethods = {
  is(this: Request, ...types: Array<string | string[]>) {
    return typeOfBody(this, flat(types));
  },
  accepts(this: Request, ...types: Array<string | string[]>) {
    return negotiate(this).types(flat(types));
  },
  acceptsEncodings(this: Request, ...encodings: Array<string | string[]>) {
    return negotiate(this).encodings(flat(encodings));
  },
  acceptsCharsets(this: Request, ...charsets: Array<string | string[]>) {
    return negotiate(this).charsets(flat(charsets));
  },
  acceptsLanguages(this: Request, ...languages: Array<string | string[]>) {
    return negotiate(this).languages(flat(languages));
  },
};

const requestAccessors: Record<string, (this: Request) => unknown> = {
  fresh(this: Request) {
    const method = this.method;
    const res = this.res;
    const status = res.statusCode;
    if (method !== 'GET' && method !== 'HEAD') return false;
    if ((status >= 200 && status < 300) || status === 304) {
      const etag = res.get('etag');
      const modified = res.get('last-modified');
      return isFresh(this.headers, {
        etag: typeof etag === 'string' ? etag : undefined,
        'last-modified': typeof modified === 'string' ? modified : undefined,
      });
    }
    return false;
  },
  stale(this: Request) {
    return !this.fresh;
  },
};

const responseMethods = {
  vary(this: Response, field: string | string[]) {
    const current = this.get('vary');
    const text = Array.isArray(current) ? current.join(', ') : (current ?? '');
    const next = addVary(text, field);
    if (next !== text) this.set('vary', next);
    return this;
  },
};

/** @internal Defines the request helpers on Request's prototype; called once by request.ts. */
export function installRequestHelpers(proto: object): void {
  for (const [name, fn] of Object.entries(requestMethods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
  for (const [name, get] of Object.entries(requestAccessors)) {
    Object.defineProperty(proto, name, { get, configurable: true, enumerable: false });
  }
}

/** @internal Defines `res.vary` on Response's prototype; called once by response.ts. */
export function installResponseHelpers(proto: object): void {
  for (const [name, fn] of Object.entries(responseMethods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
}
