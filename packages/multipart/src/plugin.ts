/**
 * The plugin: `req.multipart()` and `req.parts()` on every request, with the server's defaults.
 */
import { definePlaceholder, ErrorCodes, type Plugin, type Request, type Server, VeloxError } from '@velox/core';
import { invalidOption } from './errors.ts';
import { checkDefaults, type MultipartOptions, resolve } from './limits.ts';
import type { Part } from './part.ts';
import { FormReader } from './reader.ts';

/** What a handler given to `req.multipart()` gets called with, one part at a time. */
export type PartHandler = (part: Part) => unknown;

declare module '@velox/core' {
  interface Request {
    /**
     * Reads a multipart/form-data body, calling `handler` for each part in order and waiting for
     * it before the next (handler style). Resolves once the last part was handled. A file stream
     * the handler leaves unread is drained. Rejects (after deleting the files `part.write()` wrote)
     * with 415, 400 or 413 for bad input, `VELOX_ERR_ABORTED` if the client leaves, or the
     * handler's own error. Needs `app.register(multipart)`.
     * @example
     * ```ts
     * await req.multipart({ limits: { files: 1 } }, async (part) => {
     *   if (part.file) saved.push(await part.write(`/var/uploads/${crypto.randomUUID()}`));
     *   else fields[part.name] = part.value;
     * });
     * ```
     */
    multipart(handler: PartHandler): Promise<void>;
    multipart(options: MultipartOptions, handler: PartHandler): Promise<void>;
    /**
     * The parts of a multipart/form-data body as an async iterator (iterator style). Read each
     * file's stream before the next turn of the loop (an unread one is drained). Leaving the
     * loop early stops reading; the rest of the body is dropped when the response ends. Needs
     * `app.register(multipart)`.
     * @example
     * ```ts
     * for await (const part of req.parts({ limits: { fileSize: 1024 ** 3 } })) {
     *   if (part.file) for await (const chunk of part.file.stream) bytes += chunk.length;
     * }
     * ```
     */
    parts(options?: MultipartOptions): AsyncIterableIterator<Part>;
  }
}

interface ServerState {
  defaults: MultipartOptions;
  active: Set<FormReader>;
}

const servers = new WeakMap<Server, ServerState>();
const started = new WeakSet<Request>();

function open(req: Request, options: unknown, where: string): FormReader {
  const state = servers.get(req.server);
  const settings = resolve(state?.defaults, options, where);
  if (started.has(req)) {
    throw new VeloxError(ErrorCodes.BODY_CONSUMED, 'The multipart body was already read (req.multipart() or req.parts() was called twice)', {
      status: 500,
      expose: false,
    });
  }
  started.add(req);
  const reader = new FormReader(req, settings, (done) => state?.active.delete(done));
  if (state) {
    state.active.add(reader);
    // The upload belongs to the request: once the response ended, stop and free it.
    req.res.once('close', () => reader.responseEnded(req.res.aborted));
  }
  return reader;
}

function readParts(this: Request, options?: MultipartOptions): AsyncIterableIterator<Part> {
  return open(this, options, 'req.parts()');
}

async function readMultipart(this: Request, first: MultipartOptions | PartHandler, second?: PartHandler): Promise<void> {
  const [options, handler] = typeof first === 'function' ? [undefined, first] : [first, second];
  if (typeof handler !== 'function') {
    throw invalidOption('req.multipart() takes a handler: req.multipart(async (part) => { … }), or req.multipart({ limits }, handler)');
  }
  const reader = open(this, options, 'req.multipart()');
  try {
    for (;;) {
      const next = await reader.next();
      if (next.done) return;
      await handler(next.value);
    }
  } catch (err) {
    throw await reader.abandon(err);
  }
}

// On a server without the plugin, req.multipart() and req.parts() are core's placeholders: they
// throw VELOX_ERR_PLUGIN_MISSING naming the fix (each server's decorations are its own).
definePlaceholder('request', 'multipart', { plugin: 'multipart', from: '@velox/multipart' });
definePlaceholder('request', 'parts', { plugin: 'multipart', from: '@velox/multipart' });

/**
 * The multipart plugin. Adds `req.multipart()` (handler style) and `req.parts()` (iterator
 * style) to requests; its options are this server's defaults, which each call can override.
 * On `app.close()`, uploads still running are failed and their files deleted before close resolves.
 *
 * @example
 * ```ts
 * import { multipart } from '@velox/multipart';
 * await app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024, files: 10 } });
 * app.post('/avatar', async (req, res) => {
 *   const saved: Array<{ path: string; size: number }> = [];
 *   await req.multipart(async (part) => {
 *     if (part.file) saved.push(await part.write(`/var/uploads/${crypto.randomUUID()}`));
 *   });
 *   res.json({ saved });
 * });
 * ```
 */
export const multipart: Plugin<MultipartOptions | undefined> = (server, options) => {
  if (servers.has(server)) throw invalidOption('The multipart plugin is already registered on this server');
  const state: ServerState = { defaults: checkDefaults(options), active: new Set() };
  servers.set(server, state);
  // One function object each, shared by every server: decorating again with the same one is allowed.
  server.decorateRequest('multipart', { value: readMultipart });
  server.decorateRequest('parts', { value: readParts });
  server.addHook('onClose', async () => {
    const closing = new VeloxError(ErrorCodes.ABORTED, 'The server closed during the upload', { status: 503 });
    await Promise.all([...state.active].map((reader) => reader.shutdown(closing)));
  });
};
