/**
 * `req.app` and `res.app`: the Express application object as middlewares see it, one per
 * server, made on first use. It answers `get(setting)` for the settings middlewares read
 * (`trust proxy`, `env`, `etag`, …) from what the server really does (its read-only
 * `server.config`), and stores the others.
 */
import type { Server } from '@velox/core';
import { ExpressErrorCodes, expressError } from './errors.ts';

/**
 * Settings that describe what Velox does; they are read-only (setting one throws with what to
 * write instead), because changing them here would not change the server.
 */
const FIXED: Record<string, (server: Server) => unknown> = {
  'trust proxy': (server) => server.config.trustProxy,
  'trust proxy fn': (server) => server.config.trust ?? (() => false),
  // Velox's res.send() sends no ETag and no X-Powered-By header.
  etag: () => false,
  'x-powered-by': () => false,
  // uWS matches paths case-sensitively; the server's strict option tells /a from /a/ or not.
  'case sensitive routing': () => true,
  'strict routing': (server) => server.config.strict,
  // Repeated keys become arrays; brackets are not parsed (Express 5's "simple" parser).
  'query parser': () => 'simple',
};

const HINTS: Record<string, string> = {
  'trust proxy': 'new Server({ trustProxy })',
  'trust proxy fn': 'new Server({ trustProxy })',
  'strict routing': 'new Server({ strict })',
};

/**
 * The Express-style application object of a server (`req.app`, `res.app`). Settings that
 * describe the server (`trust proxy`, `etag`, `x-powered-by`, `case sensitive routing`,
 * `strict routing`, `query parser`) are read-only; others (`env`, `json spaces`, your own) are
 * stored for middlewares to read. Velox's own `res.json()` does not read `json spaces`.
 *
 * @example
 * ```ts
 * app.get('/env', (req, res) => res.send(String(req.app.get('env'))));
 * req.app.set('my setting', 42);
 * req.app.enabled('trust proxy'); // true when new Server({ trustProxy: true })
 * ```
 */
export class ExpressApp {
  /** The Velox server behind this object. */
  readonly server: Server;
  /** Values shared by every request of the server (Express's `app.locals`). */
  readonly locals: Record<string, unknown> = {};
  readonly #stored = new Map<string, unknown>();

  /** @internal One per server, from `expressApp()`. */
  constructor(server: Server) {
    this.server = server;
    this.#stored.set('env', process.env.NODE_ENV || 'development');
    this.#stored.set('subdomain offset', 2);
    this.#stored.set('jsonp callback name', 'callback');
  }

  /** Every setting, by name (a copy). */
  get settings(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of this.#stored) out[name] = value;
    for (const name in FIXED) out[name] = FIXED[name]!(this.server);
    return out;
  }

  /**
   * A setting's value.
   * @example
   * ```ts
   * req.app.get('trust proxy'); // the server's trustProxy option (false by default)
   * ```
   */
  get(setting: string): unknown {
    const fixed = FIXED[setting];
    return fixed ? fixed(this.server) : this.#stored.get(setting);
  }

  /**
   * Stores a setting; the read-only ones throw `VELOX_ERR_EXPRESS_FIXED_SETTING`.
   * @example
   * ```ts
   * req.app.set('views', '/srv/views');
   * ```
   */
  set(setting: string, value: unknown): this {
    if (setting in FIXED) {
      const hint = HINTS[setting];
      throw expressError(
        ExpressErrorCodes.FIXED_SETTING,
        hint ? `"${setting}" is fixed when the server is made: use ${hint}` : `"${setting}" describes what Velox does and cannot be changed`,
      );
    }
    this.#stored.set(setting, value);
    return this;
  }

  /**
   * True when a setting is truthy.
   * @example
   * ```ts
   * if (req.app.enabled('trust proxy')) console.log('behind a proxy');
   * ```
   */
  enabled(setting: string): boolean {
    return Boolean(this.get(setting));
  }

  /**
   * True when a setting is falsy.
   * @example
   * ```ts
   * req.app.disabled('etag'); // true: Velox sends no ETag from res.send()
   * ```
   */
  disabled(setting: string): boolean {
    return !this.get(setting);
  }

  /**
   * Sets a setting to true.
   * @example
   * ```ts
   * req.app.enable('my feature');
   * ```
   */
  enable(setting: string): this {
    return this.set(setting, true);
  }

  /**
   * Sets a setting to false.
   * @example
   * ```ts
   * req.app.disable('my feature');
   * ```
   */
  disable(setting: string): this {
    return this.set(setting, false);
  }
}

const apps = new WeakMap<Server, ExpressApp>();

/** @internal The application object of a server, made on first use. */
export function expressApp(server: Server): ExpressApp {
  let app = apps.get(server);
  if (!app) {
    app = new ExpressApp(server);
    apps.set(server, app);
  }
  return app;
}
