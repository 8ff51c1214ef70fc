/**
 * The response prototype of an Express app (`express.response`): Express 4's response methods
 * on top of a Velox Response with `nodeCompat`: `send` with its type, charset, Content-Length,
 * ETag and freshness rules, `json`/`jsonp` with the app's `json replacer`, `json spaces`,
 * `json escape` and `jsonp callback name`, `sendStatus`, `set` adding the charset Express adds,
 * `redirect` with its text/HTML bodies, `format`, `links`, `cookie` (JSON and signed values),
 * `sendFile`/`download` through send 0.19 as in Express 4, `render` through the app's view engines.
 */
import { extname, isAbsolute, resolve } from 'node:path';
import { PreparedHeader, Response } from '@velox/core';
import { disposition, mime, onFinished, onMimeDefine, ownEtagFns, send, textTag } from './libs.ts';
import { escapeHtml, setCharset } from './util.ts';

// Not an ESM import of node:http: on Node 22 that loads undici for good (see @velox/core's headers.ts).
const { STATUS_CODES, validateHeaderName, validateHeaderValue } = process.getBuiltinModule('node:http');

/**
 * The members beneath Express's: the prototype `expressResponse` sits on, which is the Response
 * class of the server the requests come from (core's own, with nodeCompat's and sendFiles'
 * decorations; see `adoptServerClasses`), or core's Response until a request came.
 */
let coreResponse: any = Response.prototype;

const POWERED_BY = new PreparedHeader('X-Powered-By', 'Express');

/** @internal expressInit's `X-Powered-By: Express`, through core's set (the name and value need no check). */
export function setPoweredBy(res: any): void {
  // An app that put its own setHeader on the response (app.response.setHeader = …) sees the call.
  if (res.setHeader === expressResponse.setHeader) coreResponse.setPrepared.call(res, POWERED_BY);
  else res.setHeader('X-Powered-By', 'Express');
}

/** @internal Called when Express's response prototype is put on another server's Response prototype. */
export function setCoreResponse(proto: object): void {
  coreResponse = proto;
}

/**
 * Express 4's `sendfile()`: pipes a send stream into the response and calls back once, with
 * EISDIR for a directory, ECONNABORTED when the client left before the file went out, send's
 * error (ENOENT, 403, 416…), or nothing when it was sent.
 */
function transferFile(res: any, file: any, options: any, callback: (err?: any) => void): void {
  let done = false;
  let streaming: boolean | undefined;
  const finish = (err?: any) => {
    if (done) return;
    done = true;
    callback(err);
  };
  const aborted = () => finish(Object.assign(new Error('Request aborted'), { code: 'ECONNABORTED' }));
  file.on('directory', () => finish(Object.assign(new Error('EISDIR, read'), { code: 'EISDIR' })));
  file.on('end', () => finish());
  file.on('error', (err: any) => finish(err));
  file.on('file', () => {
    streaming = false;
  });
  file.on('stream', () => {
    streaming = true;
  });
  onFinished(res, (err) => {
    if (err && err.code === 'ECONNRESET') return aborted();
    if (err) return finish(err);
    if (done) return;
    setImmediate(() => {
      if (streaming !== false && !done) return aborted();
      finish();
    });
  });
  if (options.headers) {
    file.on('headers', (target: any) => {
      for (const key of Object.keys(options.headers)) target.setHeader(key, options.headers[key]);
    });
  }
  file.pipe(res);
}
const CHARSET = /;\s*charset\s*=/;
/** `mime.lookup()` of the names given to `res.type()`, remembered (256 at most). */
const lookups = new Map<string, string>();
/** Content-Type values as `res.set()` completes them with mime's default charset, remembered. */
const completed = new Map<string, string>();

/** `res.send(text)`'s Content-Type when none was set (`type('html')` then the UTF-8 charset), checked once. */
let htmlHeader: PreparedHeader | undefined;

function htmlUtf8Header(): PreparedHeader {
  htmlHeader ??= new PreparedHeader('Content-Type', setCharset(withDefaultCharset(mime.lookup('html')), 'utf-8'));
  return htmlHeader;
}

onMimeDefine.add(() => {
  lookups.clear();
  completed.clear();
  htmlHeader = undefined;
});

/** True for `Content-Type` in any case (the usual spellings compared first, without a new string). */
export function isContentType(field: string): boolean {
  return field === 'Content-Type' || field === 'content-type' || (field.length === 12 && field.toLowerCase() === 'content-type');
}

/** A Content-Type with mime's charset for its type added when it names none (Express 4's `res.set`). */
function withDefaultCharset(value: string): string {
  let done = completed.get(value);
  if (done === undefined) {
    done = value;
    if (!CHARSET.test(value)) {
      const charset = mime.charsets.lookup(value.split(';')[0]!);
      if (charset) done += `; charset=${charset.toLowerCase()}`;
    }
    if (completed.size >= 256) completed.clear();
    completed.set(value, done);
  }
  return done;
}

function stringify(value: unknown, replacer: any, spaces: any, escapeHtml: boolean): string | undefined {
  const json: string | undefined = replacer || spaces ? JSON.stringify(value, replacer, spaces) : JSON.stringify(value);
  if (escapeHtml && typeof json === 'string') {
    return json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
  }
  return json;
}

/** Node's writeHead check: the status as an integer (`'201'` and `201.5` give 201), else a RangeError. */
function checkStatus(res: any): void {
  const given = res.statusCode;
  const code = given | 0;
  if (code < 100 || code > 999) {
    const err = new RangeError(`Invalid status code: ${given}`);
    (err as any).code = 'ERR_HTTP_INVALID_STATUS_CODE';
    throw err;
  }
  res.statusCode = code;
}

function httpError(status: number, props: Record<string, unknown>): Error {
  const err = new Error(STATUS_CODES[status]);
  Object.assign(err, { status, statusCode: status, expose: status < 500, name: `${(STATUS_CODES[status] ?? 'Error').replace(/\s/g, '')}Error` }, props);
  return err;
}

function normalizeType(type: string): string {
  return type.indexOf('/') !== -1 ? type.split(/ *; */)[0]! : mime.lookup(type);
}

/**
 * The value of `res.json()`/`res.jsonp()`, setting the status of Express 4's two-argument forms
 * (`(value, status)`, and the older `(status, value)`) as Express does.
 */
function valueAndStatus(res: any, args: any[]): unknown {
  if (args.length !== 2) return args[0];
  if (typeof args[1] === 'number') {
    res.statusCode = args[1];
    return args[0];
  }
  res.statusCode = args[0];
  return args[1];
}

/**
 * `set` and `type` of another major's response (Express 5's) that answer what Express 4's do for
 * the values send's short roads write (Content-Length, ETag, `text/html; charset=utf-8`): with
 * them, send takes those roads too.
 */
let sameSet: unknown = null;
let sameType: unknown = null;

/** @internal Names Express 5's `set` and `type` as equal to Express 4's for send's short roads. */
export function shareSendRoads(set: unknown, type: unknown): void {
  sameSet = set;
  sameType = type;
}

/** cookie 1.x's messages name the value (`option domain is invalid: x`); cookie 0.7, Express's, does not. */
const COOKIE_MESSAGE = /^((?:argument (?:name|val)|option (?:maxAge|domain|path|expires|priority|sameSite)) is invalid): /;

/** Set once the response's `locals` was made (or given). */
const kLocalsMade = Symbol('velox.express.app.locals');

/**
 * @internal `res.sendFile(path[, options][, callback])` of either major: `stream` is that major's
 * send (0.19 or 1.x), `prepare` completes the options as that major does.
 */
export function sendFile(res: any, args: [unknown, any?, ((err?: any) => void)?], stream: (req: unknown, path: string, options?: any) => any, prepare?: (options: any) => void): void {
  const [path, options, callback] = args;
  let done = callback;
  let opts = options || {};
  const next = res.req.next;
  if (!path) throw new TypeError('path argument is required to res.sendFile');
  if (typeof path !== 'string') throw new TypeError('path must be a string to res.sendFile');
  if (typeof options === 'function') {
    done = options;
    opts = {};
  }
  if (!opts.root && !isAbsolute(path)) throw new TypeError('path must be absolute or specify root to res.sendFile');
  prepare?.(opts);
  const file = stream(res.req, encodeURI(path), opts);
  transferFile(res, file, opts, (err?: any) => {
    if (done) return done(err);
    if (err && err.code === 'EISDIR') return next();
    if (err && err.code !== 'ECONNABORTED' && err.syscall !== 'write') next(err);
  });
}

/**
 * @internal `res.download(path[, filename][, options][, callback])` of either major, as Express
 * reads its arguments: `name` gives the Content-Disposition that major sends for a file name.
 */
export function download(res: any, args: [string, any?, any?, any?], name: (file: string) => string): unknown {
  const [path, filename, options, callback] = args;
  let done = callback;
  let given = filename;
  let opts = options || null;
  if (typeof filename === 'function') {
    done = filename;
    given = null;
    opts = null;
  } else if (typeof options === 'function') {
    done = options;
    opts = null;
  }
  if (typeof filename === 'object' && (typeof options === 'function' || options === undefined)) {
    given = null;
    opts = filename;
  }
  const headers: Record<string, unknown> = { 'Content-Disposition': name(given || path) };
  if (opts?.headers) {
    for (const key of Object.keys(opts.headers)) if (key.toLowerCase() !== 'content-disposition') headers[key] = opts.headers[key];
  }
  const sendOptions = Object.create(opts);
  sendOptions.headers = headers;
  const fullPath = !sendOptions.root ? resolve(path) : path;
  return res.sendFile(fullPath, sendOptions, done);
}

/**
 * @internal `res.format(handlers)` of either major: `normalize` turns a handler's key into the
 * Content-Type that major sends (an extension looked up in its MIME table).
 */
export function format(res: any, handlers: Record<string, (req: any, res: any, next: any) => void>, normalize: (type: string) => string): unknown {
  const req = res.req;
  const next = req.next;
  const keys = Object.keys(handlers).filter((v) => v !== 'default');
  const key = keys.length > 0 ? req.accepts(keys) : false;
  res.vary('Accept');
  if (key) {
    res.set('Content-Type', normalize(key));
    handlers[key]!(req, res, next);
  } else if (handlers.default) {
    handlers.default(req, res, next);
  } else {
    next(httpError(406, { types: keys.map(normalize) }));
  }
  return res;
}

/** @internal The app's settings object, on each app's response prototype (application.ts). */
export const kAppSettings = Symbol('velox.express.app.settings');

/** Set once the response's end callback runs: Node has detached the socket by then. */
const kDetached = Symbol('velox.express.app.detached');

/** Express 4's `res` methods, over Velox's Response. */
export const expressResponse: any = Object.create(Response.prototype, {
  socket: {
    get(this: any) {
      return this[kDetached] === true ? null : this.req.socket;
    },
    configurable: true,
  },
  connection: {
    get(this: any) {
      return this[kDetached] === true ? null : this.req.socket;
    },
    configurable: true,
  },
});

Object.assign(expressResponse, {
  end(this: any, chunk?: any, encoding?: any, callback?: any) {
    // Node ignores a bare end() on a finished response (its callback gets ERR_STREAM_ALREADY_FINISHED); core would report it.
    if (this.finished && (chunk === undefined || chunk === null || typeof chunk === 'function')) {
      const cb = [chunk, encoding, callback].find((arg) => typeof arg === 'function');
      if (cb) queueMicrotask(() => cb(Object.assign(new Error('Cannot call end after a stream was finished'), { code: 'ERR_STREAM_ALREADY_FINISHED' })));
      return this;
    }
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    if (typeof callback === 'function') {
      // uWS forgets the peer's address and headers once the response ended: a callback (which
      // may read req.ip or req.get(), as on Node) keeps them. Node has detached the socket from
      // the response by the time the callback runs: res.socket reads null there.
      const req = this.req;
      void req.socketAddress;
      void req.headers;
      const done = callback;
      callback = (...args: unknown[]) => {
        this[kDetached] = true;
        done(...args);
      };
    }
    return coreResponse.end.call(this, chunk, encoding, callback);
  },

  // Node's own methods set headers as given (no charset added), as on Node's ServerResponse,
  // with its checks: a name that is no HTTP token (an object, say) or an undefined value throws
  // Node's TypeError (ERR_INVALID_HTTP_TOKEN, ERR_HTTP_INVALID_HEADER_VALUE, ERR_INVALID_CHAR).
  setHeader(this: any, name: string, value: unknown) {
    validateHeaderName(name);
    validateHeaderValue(name, value as string);
    coreResponse.set.call(this, name, Array.isArray(value) ? value.map(String) : String(value));
    return this;
  },

  status(this: any, code: number) {
    this.statusCode = code;
    return this;
  },

  links(this: any, links: Record<string, string>) {
    let link: string = this.get('Link') || '';
    if (link) link += ', ';
    return this.set('Link', link + Object.keys(links).map((rel) => `<${links[rel]}>; rel="${rel}"`).join(', '));
  },

  send(this: any, ...args: any[]) {
    const body: unknown = args[0];
    let chunk: any = body;
    let encoding: BufferEncoding | undefined;
    let htmlSet = false;
    const req = this.req;
    if (args.length === 2) {
      // res.send(body, status) and res.send(status, body), as Express 4 still takes them.
      if (typeof args[0] !== 'number' && typeof args[1] === 'number') this.statusCode = args[1];
      else {
        this.statusCode = args[0];
        chunk = args[1];
      }
    }
    if (typeof chunk === 'number' && args.length === 1) {
      if (!this.get('Content-Type')) this.type('txt');
      this.statusCode = chunk;
      chunk = STATUS_CODES[chunk];
    }
    switch (typeof chunk) {
      case 'string':
        if (!this.get('Content-Type')) {
          const set = this.set;
          const type = this.type;
          if ((type === expressResponse.type || type === sameType) && (set === expressResponse.set || set === sameSet)) {
            // What type('html') and the charset step below end with, worked out once.
            coreResponse.setPrepared.call(this, htmlUtf8Header());
            htmlSet = true;
          } else this.type('html');
        }
        break;
      case 'boolean':
      case 'number':
      case 'object':
        if (chunk === null) chunk = '';
        else if (Buffer.isBuffer(chunk)) {
          if (!this.get('Content-Type')) this.type('bin');
        } else return this.json(chunk);
        break;
    }
    if (typeof chunk === 'string') {
      encoding = 'utf8';
      const type = htmlSet ? undefined : this.get('Content-Type');
      if (typeof type === 'string') {
        const withUtf8 = setCharset(type, 'utf-8');
        if (withUtf8 !== type) this.set('Content-Type', withUtf8);
      }
    }
    // The settings object (with its parents' beneath): what app.get() reads, without its walk.
    const etagFn = (this[kAppSettings] ?? this.app.settings)['etag fn'];
    const generateETag = !this.get('ETag') && typeof etagFn === 'function';
    let length: number | undefined;
    // The setting's own ETag functions hash the UTF-8 bytes: a short text's tag is remembered.
    const weak = generateETag && typeof chunk === 'string' ? ownEtagFns.get(etagFn) : undefined;
    const tag = weak === undefined ? undefined : textTag(chunk, weak);
    if (tag !== undefined) {
      length = tag.length;
      const set = this.set;
      if (set === expressResponse.set || set === sameSet) {
        // What Express's set does with these two (a string value, no charset step), without its steps.
        coreResponse.setPrepared.call(this, tag.lengthHeader);
        coreResponse.setPrepared.call(this, tag.etagHeader);
      } else {
        this.set('Content-Length', length);
        this.set('ETag', tag.etag);
      }
    } else if (chunk !== undefined) {
      if (Buffer.isBuffer(chunk)) length = chunk.length;
      else if (!generateETag && chunk.length < 1000) length = Buffer.byteLength(chunk, encoding);
      else {
        chunk = Buffer.from(chunk, encoding);
        encoding = undefined;
        length = chunk.length;
      }
      this.set('Content-Length', length);
    }
    if (generateETag && length !== undefined && tag === undefined) {
      const etag = etagFn(chunk, encoding);
      if (etag) this.set('ETag', etag);
    }
    // fresh() is false without a conditional header: skip it (and the header copy it makes) then.
    if ((req.firstHeader('if-none-match') !== '' || req.firstHeader('if-modified-since') !== '') && req.fresh) this.statusCode = 304;
    if (this.statusCode === 204 || this.statusCode === 304) {
      this.removeHeader('Content-Type');
      this.removeHeader('Content-Length');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    if (this.statusCode === 205) {
      this.set('Content-Length', '0');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    checkStatus(this);
    if (req.method === 'HEAD') this.end();
    else this.end(chunk ?? '', encoding);
    return this;
  },

  json(this: any, ...args: any[]) {
    const value = valueAndStatus(this, args);
    const app = this.app;
    const body = stringify(value, app.get('json replacer'), app.get('json spaces'), app.get('json escape'));
    if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(body);
  },

  jsonp(this: any, ...args: any[]) {
    const value = valueAndStatus(this, args);
    const app = this.app;
    let body = stringify(value, app.get('json replacer'), app.get('json spaces'), app.get('json escape'));
    let callback = this.req.query?.[app.get('jsonp callback name')];
    if (!this.get('Content-Type')) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'application/json');
    }
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback === 'string' && callback.length !== 0) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'text/javascript');
      callback = callback.replace(/[^[\]\w$.]/g, '');
      if (body === undefined) body = '';
      else body = body.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      body = `/**/ typeof ${callback} === 'function' && ${callback}(${body});`;
    }
    return this.send(body);
  },

  sendStatus(this: any, statusCode: number) {
    const body = STATUS_CODES[statusCode] || String(statusCode);
    this.statusCode = statusCode;
    this.type('txt');
    return this.send(body);
  },

  sendFile(this: any, path: unknown, options?: any, callback?: (err?: any) => void) {
    // Express 4's own way: send 0.19 streams the file into the response.
    sendFile(this, [path, options, callback], send);
  },

  download(this: any, path: string, filename?: any, options?: any, callback?: any) {
    return download(this, [path, filename, options, callback], disposition);
  },

  type(this: any, type: string) {
    let ct = type;
    if (type.indexOf('/') === -1) {
      ct = lookups.get(type) as string;
      if (ct === undefined) {
        ct = mime.lookup(type);
        if (lookups.size >= 256) lookups.clear();
        lookups.set(type, ct);
      }
    }
    return this.set('Content-Type', ct);
  },

  format(this: any, handlers: Record<string, (req: any, res: any, next: any) => void>) {
    return format(this, handlers, normalizeType);
  },

  attachment(this: any, filename?: string) {
    if (filename) this.type(extname(filename));
    this.set('Content-Disposition', disposition(filename));
    return this;
  },

  append(this: any, field: string, value: string | string[]) {
    const previous = this.get(field);
    let next: unknown = value;
    if (previous) next = Array.isArray(previous) ? previous.concat(value) : Array.isArray(value) ? [previous].concat(value) : [previous, value];
    return this.set(field, next);
  },

  set(this: any, field: any, val?: any) {
    if (arguments.length === 2) {
      let value = typeof val === 'string' ? val : Array.isArray(val) ? val.map(String) : String(val);
      if (isContentType(field)) {
        if (Array.isArray(value)) throw new TypeError('Content-Type cannot be set to an Array');
        value = withDefaultCharset(value);
      }
      coreResponse.set.call(this, field, value);
    } else {
      for (const key in field) this.set(key, field[key]);
    }
    return this;
  },

  clearCookie(this: any, name: string, options?: Record<string, unknown>) {
    return this.cookie(name, '', { expires: new Date(1), path: '/', ...options });
  },

  cookie(this: any, name: string, value: unknown, options?: Record<string, any>) {
    const opts: Record<string, any> = { ...options };
    if (opts.signed && !this.req.secret) throw new Error('cookieParser("secret") required for signed cookies');
    const text = typeof value === 'object' ? `j:${JSON.stringify(value)}` : String(value);
    if (opts.maxAge != null) {
      // cookie 0.7 (Express 4.22's and 5's) refuses a maxAge that is no finite number.
      const maxAge = opts.maxAge - 0;
      if (!Number.isFinite(maxAge)) throw new TypeError('option maxAge is invalid');
      opts.maxAge = maxAge;
    } else delete opts.maxAge;
    if (opts.encode && typeof opts.encode !== 'function') throw new TypeError('option encode is invalid');
    if (opts.path == null) opts.path = '/';
    try {
      return coreResponse.cookie.call(this, name, text, opts);
    } catch (err) {
      // Core's cookie 1.x names the value in its message (`option domain is invalid: x`); cookie 0.7 does not.
      const short = err instanceof TypeError ? COOKIE_MESSAGE.exec(err.message) : null;
      if (short) (err as TypeError).message = short[1]!;
      throw err;
    }
  },

  redirect(this: any, ...args: any[]) {
    const url: unknown = args[0];
    let address: unknown = url;
    let status = 302;
    let body = '';
    if (args.length === 2) {
      if (typeof args[0] === 'number') {
        status = args[0];
        address = args[1];
      } else status = args[1];
    }
    address = this.location(address).get('Location');
    this.format({
      text: () => {
        body = `${STATUS_CODES[status]}. Redirecting to ${address}`;
      },
      html: () => {
        body = `<p>${STATUS_CODES[status]}. Redirecting to ${escapeHtml(String(address))}</p>`;
      },
      default: () => {
        body = '';
      },
    });
    this.statusCode = status;
    this.set('Content-Length', Buffer.byteLength(body));
    checkStatus(this);
    if (this.req.method === 'HEAD') this.end();
    else this.end(body);
  },

  render(this: any, view: string, options?: any, callback?: any) {
    const app = this.req.app;
    let done = callback;
    let opts = options || {};
    const req = this.req;
    if (typeof options === 'function') {
      done = options;
      opts = {};
    }
    opts._locals = this.locals;
    done ||= (err: unknown, str: string) => {
      if (err) return req.next(err);
      this.send(str);
    };
    app.render(view, opts, done);
  },
});
// Express gives each response a `locals` without a prototype (expressInit's Object.create(null)),
// kept by core's own accessor beneath.
Object.defineProperty(expressResponse, 'locals', {
  get(this: any) {
    const below = Object.getPrototypeOf(expressResponse);
    if (this[kLocalsMade] !== true) {
      this[kLocalsMade] = true;
      Reflect.set(below, 'locals', Object.create(null), this);
    }
    return Reflect.get(below, 'locals', this);
  },
  set(this: any, value: unknown) {
    this[kLocalsMade] = true;
    Reflect.set(Object.getPrototypeOf(expressResponse), 'locals', value, this);
  },
  configurable: true,
});
expressResponse.header = expressResponse.set;
expressResponse.contentType = expressResponse.type;
