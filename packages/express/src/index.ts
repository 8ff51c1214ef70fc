/**
 * @velox/express: the Node.js/Express surface for Velox. `await app.register(nodeCompat)` lets
 * Express middlewares (body-parser, compression, morgan, express-session, passport, multer…) run
 * unmodified on a native Velox server; the default export `express()` runs a whole Express 4
 * application on Velox by changing one import.
 */
export { nodeCompat } from './plugin.ts';
export { ExpressApp } from './app.ts';
export { NodeSocket } from './request.ts';
export { ExpressErrorCodes } from './errors.ts';
export { default, default as express } from './app/express.ts';
export { Route } from './app/router.ts';

export type { ExpressErrorCode } from './errors.ts';
export type { Application, Express, ListeningServer, Router, RouterOptions } from './app/express.ts';
