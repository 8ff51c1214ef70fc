/** Internal state lives under these keys, out of the way of user properties. */
export const kConfig: unique symbol = Symbol('velox.config');
export const kHooks: unique symbol = Symbol('velox.hooks');
/** The uWS socket context of a WebSocket upgrade, kept on uWS's response object. */
export const kContext: unique symbol = Symbol('velox.wsContext');
