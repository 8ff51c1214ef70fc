/**
 * Placeholders: members of every request or response that another package's plugin provides
 * (`res.sendFile` comes from `@velox/static`'s `sendFiles`). Until a plugin decorates the member,
 * using it throws a VeloxError (`VELOX_ERR_PLUGIN_MISSING`) that names the plugin and the line
 * that registers it, where JavaScript would say "res.sendFile is not a function". A decoration
 * (`decorateRequest` / `decorateResponse`) replaces a placeholder without a conflict.
 */
import { ErrorCodes, VeloxError } from './errors.ts';
import { Request } from './request.ts';
import { Response } from './response.ts';
import type { ServerClasses } from './classes.ts';
import type { Server } from './server.ts';
import { kClasses } from './symbols.ts';

/**
 * Where a member comes from: the plugin that adds it and the package that exports the plugin.
 *
 * @example
 * ```ts
 * const fix: PluginFix = { plugin: 'sendFiles', from: '@velox/static' };
 * ```
 */
export interface PluginFix {
  /** The plugin, as its package exports it: `sendFiles`. */
  readonly plugin: string;
  /** The package: `@velox/static`. */
  readonly from: string;
  /**
   * The error to throw instead of `VELOX_ERR_PLUGIN_MISSING`, for a plugin with its own code for
   * it (`@velox/session`'s `VELOX_ERR_SESSION_NOT_REGISTERED`). Default: {@link missingPlugin}'s.
   */
  readonly error?: () => Error;
}

/**
 * What a placeholder stands for: `'method'` throws when called, `'property'` when read
 * (assigning one gives the object a property of its own, as without the placeholder).
 *
 * @example
 * ```ts
 * definePlaceholder('request', 'app', { plugin: 'nodeCompat', from: '@velox/express' }, 'property');
 * ```
 */
export type PlaceholderKind = 'method' | 'property';

/**
 * The objects placeholders sit on: every request or every response.
 *
 * @example
 * ```ts
 * const target: PlaceholderTarget = 'response';
 * ```
 */
export type PlaceholderTarget = 'request' | 'response';

/** `nodeCompat` of `@velox/express`: the Node.js/Express surface. */
const NODE: PluginFix = { plugin: 'nodeCompat', from: '@velox/express' };
/** A Node member that is read before it is called, or replaced: a property placeholder, so that reading it fails. */
const NODE_READ: PluginFix & { kind: PlaceholderKind } = { ...NODE, kind: 'property' };

/**
 * The placeholders core knows of: member → the plugin that provides it (and `kind: 'property'`
 * for one that throws when read; a method otherwise). Keep `@velox/express`'s rows in step with
 * what `nodeCompat` decorates (its test checks that every one is provided).
 */
const PLACEHOLDERS: Record<PlaceholderTarget, Record<string, PluginFix & { kind?: PlaceholderKind }>> = {
  request: {
    on: NODE,
    addListener: NODE,
    once: NODE,
    prependListener: NODE,
    prependOnceListener: NODE,
    removeListener: NODE,
    off: NODE,
    removeAllListeners: NODE,
    emit: NODE,
    listeners: NODE,
    listenerCount: NODE,
    pipe: NODE,
    unpipe: NODE,
    resume: NODE,
    pause: NODE,
    isPaused: NODE,
    read: NODE,
    setEncoding: NODE,
    setTimeout: NODE,
    destroy: NODE,
    range: NODE,
    httpVersion: NODE_READ,
    httpVersionMajor: NODE_READ,
    httpVersionMinor: NODE_READ,
    socket: NODE_READ,
    connection: NODE_READ,
    complete: NODE_READ,
    readable: NODE_READ,
    readableEnded: NODE_READ,
    rawHeaders: NODE_READ,
    app: NODE_READ,
    xhr: NODE_READ,
    subdomains: NODE_READ,
  },
  response: {
    sendFile: { plugin: 'sendFiles', from: '@velox/static' },
    download: { plugin: 'sendFiles', from: '@velox/static' },
    // on-headers reads res.writeHead to replace it: reading must fail, not assigning quietly.
    writeHead: NODE_READ,
    setHeader: NODE,
    getHeader: NODE,
    removeHeader: NODE,
    getHeaderNames: NODE,
    flushHeaders: NODE,
    setTimeout: NODE,
    _implicitHeader: NODE,
    location: NODE,
    attachment: NODE,
    format: NODE,
    _header: NODE_READ,
    socket: NODE_READ,
    connection: NODE_READ,
    app: NODE_READ,
  },
};

/** The functions (methods, getters) that are placeholders. */
const marks = new WeakSet<object>();

const LABELS: Record<PlaceholderTarget, string> = { request: 'req', response: 'res' };

function prototypeOf(target: PlaceholderTarget, server?: Server): object {
  if (server !== undefined) {
    const classes = (server as { [kClasses]?: ServerClasses })[kClasses];
    if (!classes) throw new VeloxError(ErrorCodes.INVALID_OPTION, 'isPlaceholder() takes a Server of @velox/core as its third argument');
    if (target === 'request') return classes.Request.prototype;
    if (target === 'response') return classes.Response.prototype;
  }
  if (target === 'request') return Request.prototype;
  if (target === 'response') return Response.prototype;
  throw new VeloxError(ErrorCodes.INVALID_OPTION, `A placeholder goes on 'request' or 'response'; got ${String(target)}`);
}

/**
 * The error a member gives when the plugin that provides it is missing: what a placeholder
 * throws, for a plugin's own members that need another plugin.
 *
 * @example
 * ```ts
 * import { missingPlugin } from '@velox/core';
 * throw missingPlugin('res.sendFile', { plugin: 'sendFiles', from: '@velox/static' });
 * // VELOX_ERR_PLUGIN_MISSING: res.sendFile() needs the sendFiles plugin of @velox/static:
 * //   import { sendFiles } from '@velox/static'; await app.register(sendFiles)
 * ```
 */
export function missingPlugin(member: string, fix: PluginFix, kind: PlaceholderKind = 'method'): VeloxError {
  const what = kind === 'method' ? `${member}()` : member;
  return new VeloxError(
    ErrorCodes.PLUGIN_MISSING,
    `${what} needs the ${fix.plugin} plugin of ${fix.from}: import { ${fix.plugin} } from '${fix.from}'; await app.register(${fix.plugin})`,
  );
}

/**
 * Puts a placeholder for `name` on every request or response: until a plugin decorates `name`,
 * calling it (a method) or reading it (a property) throws {@link missingPlugin}'s error, which
 * names the fix. A member that is not a placeholder is left alone (core's own, or a decoration
 * already made), and so is a second definition of the same placeholder.
 *
 * @example
 * ```ts
 * import { definePlaceholder } from '@velox/core';
 * definePlaceholder('response', 'render', { plugin: 'views', from: 'my-views' });
 * app.get('/', (req, res) => res.render('home')); // 500 VELOX_ERR_PLUGIN_MISSING, naming `await app.register(views)`
 * ```
 */
export function definePlaceholder(target: PlaceholderTarget, name: string, fix: PluginFix, kind: PlaceholderKind = 'method'): void {
  const proto = prototypeOf(target);
  if (typeof name !== 'string' || name === '') throw new VeloxError(ErrorCodes.INVALID_OPTION, 'definePlaceholder() takes a member name');
  if (!fix || typeof fix.plugin !== 'string' || typeof fix.from !== 'string' || (fix.error !== undefined && typeof fix.error !== 'function')) {
    throw new VeloxError(ErrorCodes.INVALID_OPTION, "definePlaceholder() takes the fix as { plugin: 'name', from: 'package' }, with an optional error: () => Error");
  }
  if (kind !== 'method' && kind !== 'property') throw new VeloxError(ErrorCodes.INVALID_OPTION, `A placeholder is a 'method' or a 'property'; got ${String(kind)}`);
  if (name in proto) return;
  const member = `${LABELS[target]}.${name}`;
  if (kind === 'method') {
    const method = {
      [name](): never {
        throw fix.error ? fix.error() : missingPlugin(member, fix, 'method');
      },
    }[name]!;
    marks.add(method);
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
    return;
  }
  const get = function (this: object): never {
    throw fix.error ? fix.error() : missingPlugin(member, fix, 'property');
  };
  const set = function (this: object, value: unknown): void {
    Object.defineProperty(this, name, { value, writable: true, configurable: true, enumerable: true });
  };
  marks.add(get);
  Object.defineProperty(proto, name, { get, set, configurable: true, enumerable: false });
}

/**
 * True while `name` on the requests (or responses) of `server` is a placeholder, that is until a
 * plugin registered on that server decorated it. Without a server: on core's own `Request`
 * (`Response`) prototype, beneath every server's decorations, where a placeholder stays.
 *
 * @example
 * ```ts
 * import { isPlaceholder } from '@velox/core';
 * isPlaceholder('response', 'sendFile', app); // true until app registers sendFiles from @velox/static
 * isPlaceholder('response', 'sendFile'); // true: decorations go on each server's own classes
 * ```
 */
export function isPlaceholder(target: PlaceholderTarget, name: string, server?: Server): boolean {
  return placeholderOn(prototypeOf(target, server), name);
}

/** @internal True when the member `name` that `proto` has (own or inherited) is a placeholder. */
export function placeholderOn(proto: object, name: string): boolean {
  for (let o: object | null = proto; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d !== undefined) return marks.has((d.value ?? d.get) as object);
  }
  return false;
}

for (const target of ['request', 'response'] as const) {
  for (const [name, fix] of Object.entries(PLACEHOLDERS[target])) definePlaceholder(target, name, fix, fix.kind);
}
