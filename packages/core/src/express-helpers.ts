/**
 * Express's request and response helpers that middlewares and handlers call: `req.is`,
 * `req.accepts*`, `req.fresh`/`stale`, `req.xhr`, `req.range`, `req.subdomains`; `res.vary`,
 * `res.location`, `res.attachment`, `res.format`. Defined on the prototypes, run only when called.
 */
import { isIP } from 'node:net';
import { contentType, fileContentType } from './content-type.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import { addVary, disposition, isFresh, negotiate, parseRange, typeOfBody } from './express-libs.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';



function flat(args: Array<string | string[]>): string[] {
  return args.length === 1 && Array.isArray(args[0]) ? args[0] : (args.flat() as string[]);
}

/** Encodes what is not allowed in a URL, keeping what is already percent-encoded (Express's encodeurl). */
function encodeUrl(url: string): string {
  return url
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?![0-9A-Fa-f]{2}))+/g, (text) => encodeURI(text))
    .replace(/(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g, '$1\uFFFD$2');
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
  range(this: Request, size: number, options: { combine?: boolean } = {}) {
    const header = this.get('range');
    if (!header) return undefined;
    const ranges = parseRange(size, header, options.combine === true);
    if (typeof ranges === 'number') return ranges;
    return Object.assign(ranges, { type: 'bytes' });
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
  xhr(this: Request) {
    return (this.get('x-requested-with') ?? '').toLowerCase() === 'xmlhttprequest';
  },
  subdomains(this: Request) {
    const host = this.hostname;
    if (!host) return [];
    const offset = Number(this.app.get('subdomain offset') ?? 2);
    const labels = isIP(host) ? [host] : host.split('.').reverse();
    return labels.slice(offset);
  },
};

const responseMethods = {
  vary(this: Response, field: string | string[]) {
    const current = this.get('vary');
    const text = Array.isArray(current) ? current.join(', ') : (current ?? '');
    const next = addVary(text, field);
    if (next !== text) this.setHeader('vary', next);
    return this;
  },
  location(this: Response, url: string) {
    const target = url === 'back' ? (this.req.get('referer') ?? '/') : url;
    return this.setHeader('location', encodeUrl(String(target)));
  },
  attachment(this: Response, filename?: string) {
    if (filename) {
      const type = fileContentType(filename);
      if (type && !this.hasHeader('content-type')) this.setHeader('content-type', type);
    }
    return this.setHeader('content-disposition', disposition(filename === undefined ? undefined : filename.replace(/^.*[\\/]/, '')));
  },
  format(this: Response, handlers: Record<string, (req: Request, res: Response, next: (err?: unknown) => void) => unknown>) {
    const req = this.req;
    const fallback = handlers.default;
    const keys = Object.keys(handlers).filter((key) => key !== 'default');
    const chosen = keys.length > 0 ? req.accepts(keys) : false;
    this.vary('Accept');
    const next = (err?: unknown) => {
      if (err !== undefined && err !== null) req.server._fail(err, req, this);
    };
    if (typeof chosen === 'string') {
      if (!this.hasHeader('content-type')) this.setHeader('content-type', contentType(chosen) ?? chosen);
      handlers[chosen]!(req, this, next);
    } else if (fallback) {
      fallback(req, this, next);
    } else {
      req.server._fail(
        new VeloxError(ErrorCodes.NOT_ACCEPTABLE, `Not Acceptable: this answers ${keys.join(', ')}`, {
          status: 406,
          details: { types: keys },
        }),
        req,
        this,
      );
    }
    return this;
  },
};

/** @internal Defines the helpers on the prototypes; called once by request.ts and response.ts. */
export function installRequestHelpers(proto: object): void {
  for (const [name, fn] of Object.entries(requestMethods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
  for (const [name, get] of Object.entries(requestAccessors)) {
    Object.defineProperty(proto, name, { get, configurable: true, enumerable: false });
  }
}

/** @internal See {@link installRequestHelpers}. */
export function installResponseHelpers(proto: object): void {
  for (const [name, fn] of Object.entries(responseMethods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
}
