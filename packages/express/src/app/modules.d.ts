// Express 4's own versions of these libraries, installed under aliases (the package's tests use
// the current majors under their own names). Their surface as libs.ts uses it.
declare module 'body-parser-express4' {
  type Factory = (options?: Record<string, unknown>) => (req: any, res: any, next: (err?: unknown) => void) => void;
  const bodyParser: { json: Factory; urlencoded: Factory; raw: Factory; text: Factory };
  export default bodyParser;
}
declare module 'serve-static-express4' {
  const serveStatic: ((root: string, options?: Record<string, unknown>) => (req: any, res: any, next: (err?: unknown) => void) => void) & { mime: unknown };
  export default serveStatic;
}
declare module 'path-to-regexp' {
  const pathToRegexp: (path: unknown, keys: unknown[], options: unknown) => RegExp;
  export default pathToRegexp;
}
declare module 'content-disposition-express4' {
  const contentDisposition: (filename?: string, options?: { type?: string; fallback?: string | boolean }) => string;
  export default contentDisposition;
}
declare module 'send-express4' {
  import type { EventEmitter } from 'node:events';
  interface SendStream extends EventEmitter {
    pipe(res: unknown): unknown;
  }
  const send: ((req: unknown, path: string, options?: Record<string, unknown>) => SendStream) & { mime: unknown };
  export default send;
}
declare module 'on-finished' {
  const onFinished: (msg: unknown, listener: (err: (Error & { code?: string }) | null, msg: unknown) => void) => unknown;
  export default onFinished;
}
