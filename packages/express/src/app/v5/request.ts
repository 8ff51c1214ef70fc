/**
 * Express 5's request prototype, over Express 4's (../request.ts): `req.query` is a getter that
 * parses the query string with the app's `query parser` on each read (it cannot be assigned, as
 * in Express 5), `req.host` keeps the port and `req.hostname` is read from it, and Express 4's
 * removed `req.param()` is gone.
 */
import { expressRequest } from '../request.ts';
import { kAppSettings } from '../response.ts';

/** The query string as parseurl gives it: null without a '?', else the text after it. */
function queryText(req: any): string | null {
  const raw: unknown = req.rawQuery;
  if (typeof raw === 'string' && raw !== '') return raw;
  const url: string = req.url;
  const q = url.indexOf('?');
  return q === -1 ? null : url.slice(q + 1);
}

/** Express 5's `req` members, over Express 4's. */
export const expressRequest5: any = Object.create(expressRequest, {
  query: {
    get(this: any) {
      // The settings object (with its parents' beneath): what app.get() reads, without its walk.
      const parse = (this[kAppSettings] ?? this.app.settings)['query parser fn'] as ((text: string | null) => unknown) | undefined;
      if (!parse) return Object.create(null);
      return parse(queryText(this));
    },
    configurable: true,
    enumerable: true,
  },
  host: {
    get(this: any) {
      const trust = this.app.get('trust proxy fn') as (address: string | undefined, index: number) => boolean;
      let value: string | undefined = this.get('X-Forwarded-Host');
      if (!value || !trust(this.socket.remoteAddress, 0)) value = this.get('Host');
      else if (value.indexOf(',') !== -1) value = value.substring(0, value.indexOf(',')).trimEnd();
      return value || undefined;
    },
    configurable: true,
  },
  hostname: {
    get(this: any) {
      const host: string | undefined = this.host;
      if (!host) return undefined;
      const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
      const index = host.indexOf(':', offset);
      return index !== -1 ? host.substring(0, index) : host;
    },
    configurable: true,
  },
  // Removed in Express 5: calling it throws a TypeError, as there.
  param: { value: undefined, writable: true, configurable: true },
});
