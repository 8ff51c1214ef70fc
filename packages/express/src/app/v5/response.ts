/**
 * Express 5's response prototype, over Express 4's (../response.ts): `res.status()` refuses a
 * code that is no integer from 100 to 999, `res.send()`/`res.json()`/`res.jsonp()` take the body
 * only (a number is sent as JSON), types come from mime-types 3 (`res.set('Content-Type')` adds
 * its charset), `res.sendFile()` streams with send 1.x, `res.download()`/`res.attachment()` name
 * the file's base name, `res.clearCookie()` always expires the cookie now, `res.location()` and
 * `res.redirect()` take `'back'` as a URL like any other, `res.redirect()` sends Express 5's HTML
 * page, `res.links()` takes arrays, and `res.vary()` wants a field. A Content-Type mime-types
 * does not know reads back as false (as Node keeps it).
 */
import { basename, extname } from 'node:path';
import { download, expressResponse, format, isContentType, sendFile, shareSendRoads } from '../response.ts';
import { encodeUrl, escapeHtml } from '../util.ts';
import { contentType, disposition5, lookupType, send5 } from './libs.ts';

// Not an ESM import of node:http: on Node 22 that loads undici for good (see @velox/core's headers.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

const send4 = expressResponse.send;
const json4 = expressResponse.json;
const jsonp4 = expressResponse.jsonp;
const set4 = expressResponse.set;

/** Set on a response whose Content-Type was set to a bare word mime-types does not know (see `set`). */
const kTypeFalse = Symbol('velox.express5.typeFalse');

/** mime-types' full types of the values given, remembered (256 at most): an app sets the same few. */
const fullTypes = new Map<string, string | false>();

function fullType(value: string): string | false {
  let type = fullTypes.get(value);
  if (type === undefined) {
    type = contentType(value);
    if (fullTypes.size >= 256) fullTypes.clear();
    fullTypes.set(value, type);
  }
  return type;
}

/** Express 5's normalizeType: a full type as given (parameters dropped), an extension looked up. */
function normalizeType(type: string): string {
  return type.indexOf('/') !== -1 ? type.split(/ *; */)[0]! : lookupType(type) || 'application/octet-stream';
}

/** Express 5's `res` members, over Express 4's. */
export const expressResponse5: any = Object.create(expressResponse);

Object.assign(expressResponse5, {
  status(this: any, code: number) {
    if (!Number.isInteger(code)) throw new TypeError(`Invalid status code: ${JSON.stringify(code)}. Status code must be an integer.`);
    if (code < 100 || code > 999) throw new RangeError(`Invalid status code: ${JSON.stringify(code)}. Status code must be greater than 99 and less than 1000.`);
    this.statusCode = code;
    return this;
  },

  links(this: any, links: Record<string, string | string[]>) {
    let link: string = this.get('Link') || '';
    if (link) link += ', ';
    return this.set(
      'Link',
      link +
        Object.keys(links)
          .map((rel) => {
            const target = links[rel];
            return Array.isArray(target) ? target.map((one) => `<${one}>; rel="${rel}"`).join(', ') : `<${target}>; rel="${rel}"`;
          })
          .join(', '),
    );
  },

  send(this: any, body?: unknown) {
    let chunk: any = body;
    // A number or boolean is JSON in Express 5 (Express 4 took a number as the status).
    if (typeof chunk === 'number' || typeof chunk === 'boolean') return this.json(chunk);
    // Any typed array or DataView is bytes, as a Buffer is.
    if (chunk !== null && typeof chunk === 'object' && ArrayBuffer.isView(chunk) && !Buffer.isBuffer(chunk)) {
      chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    return send4.call(this, chunk);
  },

  json(this: any, value?: unknown) {
    return json4.call(this, value);
  },

  jsonp(this: any, value?: unknown) {
    return jsonp4.call(this, value);
  },

  sendStatus(this: any, statusCode: number) {
    const body = STATUS_CODES[statusCode] || String(statusCode);
    this.status(statusCode);
    this.type('txt');
    return this.send(body);
  },

  sendFile(this: any, path: unknown, options?: any, callback?: (err?: any) => void) {
    // send 1.x, with the app's etag setting as Express 5 passes it.
    sendFile(this, [path, options, callback], send5, (opts) => {
      opts.etag = this.app.enabled('etag');
    });
  },

  download(this: any, path: string, filename?: any, options?: any, callback?: any) {
    return download(this, [path, filename, options, callback], (file) => disposition5(basename(file)));
  },

  type(this: any, type: string) {
    const ct = type.indexOf('/') === -1 ? fullType(type) || 'application/octet-stream' : type;
    return this.set('Content-Type', ct);
  },

  format(this: any, handlers: Record<string, (req: any, res: any, next: any) => void>) {
    return format(this, handlers, normalizeType);
  },

  attachment(this: any, filename?: string) {
    const name = filename !== undefined ? basename(filename) : undefined;
    if (name) this.type(extname(name));
    this.set('Content-Disposition', disposition5(name));
    return this;
  },

  set(this: any, field: any, val?: any) {
    if (arguments.length === 2 && isContentType(field)) {
      if (Array.isArray(val)) throw new TypeError('Content-Type cannot be set to an Array');
      // mime-types' full type (its charset added); false for a text it does not know, as Express 5
      // sends it. Node keeps that false as the value: written `false`, read back as false by
      // res.get(), so res.send() and res.json() take the response as untyped and type it.
      const type = fullType(typeof val === 'string' ? val : String(val));
      if (type === false) this[kTypeFalse] = true;
      else if (this[kTypeFalse] === true) this[kTypeFalse] = false;
      return set4.call(this, field, String(type));
    }
    if (arguments.length === 2) return set4.call(this, field, val);
    for (const key in field) this.set(key, field[key]);
    return this;
  },

  get(this: any, field: string) {
    // Express 4's (core's) get, read when called: the prototype beneath is the serving server's.
    const value = expressResponse.get.call(this, field);
    return value === 'false' && this[kTypeFalse] === true && isContentType(field) ? false : value;
  },

  clearCookie(this: any, name: string, options?: Record<string, unknown>) {
    const opts: Record<string, unknown> = { path: '/', ...options, expires: new Date(1) };
    delete opts.maxAge;
    return this.cookie(name, '', opts);
  },

  location(this: any, url: unknown) {
    return this.set('Location', encodeUrl(String(url)));
  },

  redirect(this: any, ...args: any[]) {
    let address: unknown = args[0];
    let status: any = 302;
    let body = '';
    if (args.length === 2) {
      status = args[0];
      address = args[1];
    }
    address = this.location(address).get('Location');
    this.format({
      text: () => {
        body = `${STATUS_CODES[status]}. Redirecting to ${address}`;
      },
      html: () => {
        const title = STATUS_CODES[status];
        body = `<!DOCTYPE html><head><title>${title}</title></head><body><p>${title}. Redirecting to ${escapeHtml(String(address))}</p></body>`;
      },
      default: () => {
        body = '';
      },
    });
    this.status(status);
    this.set('Content-Length', Buffer.byteLength(body));
    if (this.req.method === 'HEAD') this.end();
    else this.end(body);
  },

  vary(this: any, field: string | string[]) {
    if (!field) throw new TypeError('field argument is required');
    // Express 4's (core's) vary, read when called: the prototype beneath is the serving server's.
    return expressResponse.vary.call(this, field);
  },
});
expressResponse5.header = expressResponse5.set;
// For Content-Length, ETag and `text/html; charset=utf-8` (what send writes on its short roads),
// this set and type write what Express 4's do.
shareSendRoads(expressResponse5.set, expressResponse5.type);
expressResponse5.contentType = expressResponse5.type;
// Removed in Express 5.
expressResponse5.sendfile = undefined;
