/**
 * @velox/express: the Node.js/Express surface for Velox. `await app.register(nodeCompat)` lets
 * Express middlewares (body-parser, compression, morgan, express-session, passport, multer…) run
 * unmodified on a native Velox server.
 */
export { nodeCompat } from './plugin.ts';
export { ExpressApp } from './app.ts';
export { NodeSocket } from './request.ts';
export { ExpressErrorCodes } from './errors.ts';

export type { ExpressErrorCode } from './errors.ts';
