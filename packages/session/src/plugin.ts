/**
 * The session plugin: checks the options once, opens the store (so `listen()` waits for it),
 * adds `req.session` (a getter, free until read), and closes the store on `app.close()`.
 */
import { definePlaceholder, type Request, type Server } from '@velox/core';
import { invalidOption, SessionErrorCodes, usageError } from './errors.ts';
import { type SessionOptions, type Settings, settingsOf } from './options.ts';
import { Session } from './session.ts';

declare module '@velox/core' {
  interface Request {
    /**
     * The session of this request (with the `@velox/session` plugin). Nothing is read or written
     * until `await req.session.start()`.
     */
    readonly session: Session;
  }
}

const kSettings: unique symbol = Symbol('velox.session.settings');
const kSession: unique symbol = Symbol('velox.session');

type WithSettings = Server & { [kSettings]?: Settings };
type WithSession = Request & { [kSession]?: Session };

const NOT_REGISTERED = 'req.session needs the session plugin on this server: await app.register(session, { secret })';

// On a server without the plugin, reading req.session throws VELOX_ERR_SESSION_NOT_REGISTERED
// (core's placeholder, beneath every server's own decorations).
definePlaceholder('request', 'session', { plugin: 'session', from: '@velox/session', error: () => usageError(SessionErrorCodes.NOT_REGISTERED, NOT_REGISTERED) }, 'property');

/** `req.session`: made on first read, then kept on the request. One function for every server. */
function sessionOf(this: Request): Session {
  const req = this as WithSession;
  const own = req[kSession];
  if (own !== undefined) return own;
  const settings = (req.server as WithSettings)[kSettings];
  if (settings === undefined) {
    throw usageError(SessionErrorCodes.NOT_REGISTERED, NOT_REGISTERED);
  }
  return (req[kSession] = new Session(req, settings));
}

/**
 * The session plugin. Register it once per server; it opens the store before `listen()` resolves
 * (a RedisStore is connected then if Redis is up; if not, the app starts anyway and sessions
 * answer 503 until it is) and closes it on `app.close()`. Throws
 * `VELOX_ERR_SESSION_INVALID_OPTION` at registration for a bad option, such as a secret shorter
 * than 32 characters.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { session, RedisStore } from '@velox/session';
 *
 * const app = new Server();
 * await app.register(session, {
 *   secret: [process.env.SESSION_SECRET, process.env.OLD_SESSION_SECRET],
 *   store: new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'sess:' }),
 *   idleTimeout: 30 * 60_000,
 *   absoluteTimeout: 24 * 3600_000,
 *   cookie: { name: 'sid', sameSite: 'lax' },
 * });
 * app.get('/visits', async (req, res) => {
 *   await req.session.start();
 *   const visits = (Number(req.session.get('visits')) || 0) + 1;
 *   req.session.set('visits', visits);
 *   res.json({ visits });
 * });
 * ```
 */
export async function session(server: Server, options: SessionOptions): Promise<void> {
  const target = server as WithSettings;
  if (target[kSettings] !== undefined) throw invalidOption('The session plugin is already registered on this server');
  const settings = settingsOf(options);
  server.decorateRequest('session', { get: sessionOf });
  Object.defineProperty(target, kSettings, { value: settings, configurable: true });
  const store = settings.store;
  if (typeof store.open === 'function') await store.open(server);
  if (typeof store.close === 'function') server.addHook('onClose', () => store.close!());
}
