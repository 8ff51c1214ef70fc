/**
 * The last handler of an app (Express 4's finalhandler): 404 `Cannot GET /path` when nothing
 * answered, else the error's status (or 500) with its stack outside production and the status
 * text in production, as an HTML page with the same headers Express sends.
 */
import { encodeUrl, escapeHtml } from './util.ts';

// Not an ESM import of node:http: on Node 22 that loads undici for good (see @velox/core's headers.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

function errorStatus(err: any): number | undefined {
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 600) return err.status;
  if (typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600) return err.statusCode;
  return undefined;
}

function page(message: string): string {
  const body = escapeHtml(message).replace(/\n/g, '<br>').replace(/ {2}/g, ' &nbsp;');
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${body}</pre>\n</body>\n</html>\n`;
}

function originalPath(req: any): string {
  const url: string = req.originalUrl || req.url || '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The `done` of `app.handle()`: answers what nothing else answered. */
export function finalHandler(req: any, res: any, env: string, onerror: ((err: unknown) => void) | undefined): (err?: unknown) => void {
  return (err?: unknown) => {
    if (!err && res.headersSent) return;
    let status: number;
    let headers: Record<string, string> | undefined;
    let message: string;
    if (err) {
      const own = errorStatus(err);
      if (own === undefined) {
        status = res.statusCode >= 400 && res.statusCode < 600 ? res.statusCode : 500;
      } else {
        status = own;
        const h = (err as any).headers;
        if (h && typeof h === 'object') headers = h;
      }
      let text: string | undefined;
      if (env !== 'production') {
        text = (err as any).stack;
        if (!text && typeof (err as any).toString === 'function') text = String(err);
      }
      message = text || STATUS_CODES[status] || String(status);
      if (onerror) setImmediate(onerror, err);
    } else {
      status = 404;
      message = `Cannot ${req.method} ${encodeUrl(originalPath(req))}`;
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = page(message);
    res.statusCode = status;
    for (const name of ['content-encoding', 'content-language', 'content-range']) res.removeHeader(name);
    if (headers) for (const name of Object.keys(headers)) res.setHeader(name, headers[name]);
    res.setHeader('Content-Security-Policy', "default-src 'none'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  };
}
