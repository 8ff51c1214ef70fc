/**
 * The `sendFiles` plugin: `res.sendFile(path, options?, callback?)` and
 * `res.download(path, filename?, options?, callback?)` with Express's argument forms, as
 * decorations of the response. Without the plugin, core's placeholders for both answer
 * `VELOX_ERR_PLUGIN_MISSING`, naming `await app.register(sendFiles)`.
 */
import { resolve } from 'node:path';
import { ErrorCodes, type Plugin, type Response, VeloxError } from '@velox/core';
import { invalidOption } from './errors.ts';
import { attachment } from './libs.ts';
import { describe, fileTarget, type SendFileOptions, sendTarget } from './send-file.ts';

/**
 * Called once a file answer is over: with no argument when the file was sent, with the error
 * otherwise (then nothing was answered yet, unless the client left or the error came mid-body).
 *
 * @example
 * ```ts
 * const done: SendFileCallback = (err) => {
 *   if (err) console.error(err);
 * };
 * app.get('/report', (req, res) => res.sendFile('/srv/report.pdf', done));
 * ```
 */
export type SendFileCallback = (err?: Error) => void;

declare module '@velox/core' {
  interface Response {
    /**
     * Sends a file, as Express's `res.sendFile` does (with the `sendFiles` plugin of
     * `@velox/static`): Content-Type from its extension, ETag, Last-Modified, Cache-Control,
     * conditional requests (304, 412) and ranges (206, several as multipart/byteranges when
     * small, 416), streamed from disk with backpressure (HEAD gets the head only). `path` must be
     * absolute unless `options.root` is given; then it is taken relative to the root and may not
     * leave it (`..`, symlinks out of it: 403). Without a callback, a failure goes to the error
     * handler (404 `VELOX_ERR_STATIC_NOT_FOUND`, 403 `VELOX_ERR_STATIC_FORBIDDEN`, 412, 416…);
     * with one, the callback gets it and answers. A missing or relative path without `root` is
     * a programming error: it throws `VELOX_ERR_STATIC_INVALID_OPTION` at once. The promise (you
     * need not await it) settles once the answer is over and never rejects.
     * @example
     * ```ts
     * await app.register(sendFiles);
     * app.get('/files/:name', (req, res) => res.sendFile(req.params.name, { root: './public', maxAge: '1h' }));
     * app.get('/report', (req, res) =>
     *   res.sendFile('/srv/report.pdf', (err) => {
     *     if (err) res.status(404).send('No report today');
     *   }),
     * );
     * ```
     */
    sendFile(path: string, callback?: SendFileCallback): Promise<void>;
    sendFile(path: string, options: SendFileOptions | undefined, callback?: SendFileCallback): Promise<void>;
    /**
     * Sends a file as a download, as Express's `res.download` does (with the `sendFiles`
     * plugin): `res.sendFile` with `Content-Disposition: attachment` naming `filename` (default:
     * the file's own name; non-ASCII names are sent as RFC 8187 `filename*` with an ASCII
     * fallback). Without `root`, a relative path is taken from the working directory. A
     * `content-disposition` in `options.headers` is ignored.
     * @example
     * ```ts
     * await app.register(sendFiles);
     * app.get('/export', (req, res) => res.download('/srv/exports/2024.csv', 'données.csv'));
     * app.get('/invoice/:id', (req, res) => res.download(`${req.params.id}.pdf`, { root: './invoices' }));
     * ```
     */
    download(path: string, callback?: SendFileCallback): Promise<void>;
    download(path: string, filename: string | null | undefined, callback?: SendFileCallback): Promise<void>;
    download(path: string, filename: string | null | undefined, options: SendFileOptions | undefined, callback?: SendFileCallback): Promise<void>;
    download(path: string, options: SendFileOptions, callback?: SendFileCallback): Promise<void>;
  }
}

/** `res.sendFile(path, options?, callback?)`: Express's argument forms; bad arguments throw at once. */
function sendFileMethod(this: Response, path: string, options?: SendFileOptions | SendFileCallback, callback?: SendFileCallback): Promise<void> {
  return respondWithFile(this, path, options, callback);
}

/** `res.download(path, filename?, options?, callback?)`: Express's argument forms. */
function downloadMethod(
  this: Response,
  path: string,
  filename?: string | null | SendFileOptions | SendFileCallback,
  options?: SendFileOptions | SendFileCallback,
  callback?: SendFileCallback,
): Promise<void> {
  let done = callback;
  let name: unknown = filename;
  let opts: SendFileOptions | undefined = options as SendFileOptions | undefined;
  if (typeof filename === 'function') {
    done = filename;
    name = undefined;
    opts = undefined;
  } else if (typeof options === 'function') {
    done = options;
    opts = undefined;
  }
  // download(path, options) and download(path, options, callback).
  if (typeof filename === 'object' && filename !== null && (typeof options === 'function' || options === undefined)) {
    name = undefined;
    opts = filename;
  }
  if (typeof path !== 'string' || path === '') throw invalidOption(`res.download needs the file's path as a non-empty string; got ${describe(path)}`);
  if (name !== undefined && name !== null && typeof name !== 'string') throw invalidOption(`res.download's file name must be a string; got ${describe(name)}`);
  const headers: NonNullable<SendFileOptions['headers']> = {
    'content-disposition': attachment(((name as string | null | undefined) || path).replace(/^.*[\\/]/, '')),
  };
  const given = opts?.headers;
  if (given) for (const key in given) if (key.toLowerCase() !== 'content-disposition') headers[key] = given[key]!;
  // Without root, a relative path is taken from the working directory, as Express does.
  const full = opts?.root ? path : resolve(path);
  return respondWithFile(this, full, { ...opts, headers }, done);
}

function respondWithFile(res: Response, path: string, options: SendFileOptions | SendFileCallback | undefined, callback: SendFileCallback | undefined): Promise<void> {
  let done = callback;
  let opts = options;
  if (typeof options === 'function') {
    done = options;
    opts = undefined;
  }
  if (done !== undefined && typeof done !== 'function') throw invalidOption('The callback of res.sendFile must be a function (err) => …');
  const target = fileTarget(path, opts as SendFileOptions | undefined);
  return sendTarget(res.req, res, target).then(
    () => {
      if (done) report(res, done, res.aborted ? aborted() : undefined);
    },
    (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      if (done) report(res, done, error);
      else res.server.handleError(error, res.req, res);
    },
  );
}

/** Hands the outcome to the callback; a callback that throws goes to the error handler. */
function report(res: Response, done: SendFileCallback, err: Error | undefined): void {
  try {
    if (err === undefined) done();
    else done(err);
  } catch (thrown) {
    res.server.handleError(thrown, res.req, res);
  }
}

function aborted(): VeloxError {
  return new VeloxError(ErrorCodes.ABORTED, 'The client closed the connection before the file was sent', { status: 499 });
}

/**
 * The plugin that gives every response of this server `res.sendFile()` and `res.download()`
 * (Express's methods, on @velox/static's file sending: ETag, Last-Modified, 304/412, ranges,
 * HEAD, streaming with backpressure). Registering it on several servers is fine; a server that
 * did not register it answers those calls with `VELOX_ERR_PLUGIN_MISSING`, which names the fix.
 * `@velox/express`'s `nodeCompat` registers it for you. It takes no options: each call takes
 * {@link SendFileOptions}.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { sendFiles } from '@velox/static';
 *
 * const app = new Server();
 * await app.register(sendFiles);
 * app.get('/report', (req, res) => res.sendFile('report.pdf', { root: './private', maxAge: '1h' }));
 * app.get('/export', (req, res) => res.download('/srv/exports/2024.csv', 'données.csv'));
 * ```
 */
export const sendFiles: Plugin<Record<string, never>> = (server) => {
  server.decorateResponse('sendFile', { value: sendFileMethod });
  server.decorateResponse('download', { value: downloadMethod });
};
