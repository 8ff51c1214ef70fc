/** Internal state lives under these keys, out of the way of user properties. */
export const kConfig: unique symbol = Symbol('velox.config');
export const kHooks: unique symbol = Symbol('velox.hooks');
/** The uWS socket context of a WebSocket upgrade, kept on uWS's response object. */
export const kContext: unique symbol = Symbol('velox.wsContext');
/** The request's URL before a middleware or a mount point first rewrote `req.url` (Express's `originalUrl`). */
export const kOriginalUrl: unique symbol = Symbol('velox.originalUrl');
/** The part of the path a prefixed middleware is mounted at, while it runs (Express's `baseUrl`). */
export const kBaseUrl: unique symbol = Symbol('velox.baseUrl');
