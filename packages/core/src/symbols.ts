/** Internal state lives under these keys, out of the way of user properties. */
export const kConfig: unique symbol = Symbol('velox.config');
export const kHooks: unique symbol = Symbol('velox.hooks');
/** The server's own Request and Response classes (per-server subclasses, where its decorations go). */
export const kClasses: unique symbol = Symbol('velox.classes');
/** The uWS socket context of a WebSocket upgrade, kept on uWS's response object. */
export const kContext: unique symbol = Symbol('velox.wsContext');
/** The request's URL before a middleware or a mount point first rewrote `req.url` (Express's `originalUrl`). */
export const kOriginalUrl: unique symbol = Symbol('velox.originalUrl');
/** The part of the path a prefixed middleware is mounted at, while it runs (Express's `baseUrl`). */
export const kBaseUrl: unique symbol = Symbol('velox.baseUrl');

// What the lifecycle calls on requests and responses, out of reach of user code and plugins.
/** The client left: the request and the response stop (both have it). */
export const kAbort: unique symbol = Symbol('velox.abort');
/** The handler went async: copy what uWS's request holds before it dies (both have it). */
export const kDetach: unique symbol = Symbol('velox.detach');
/** True while no body reader started (the body, if any, is still uWS's to hand over). */
export const kBodyUnstarted: unique symbol = Symbol('velox.bodyUnstarted');
/** The request ended synchronously: let go of what it holds. */
export const kRelease: unique symbol = Symbol('velox.release');
/** The response is ending: let go of the request's body. */
export const kEnd: unique symbol = Symbol('velox.end');
/** Keep the client's address readable after the response ends (for onResponse hooks and loggers). */
export const kKeepAddress: unique symbol = Symbol('velox.keepAddress');
/** The body no one read yet, which the response drains or refuses. */
export const kUnreadBody: unique symbol = Symbol('velox.unreadBody');
/** True when the body went over maxBodyLength. */
export const kOverflowed: unique symbol = Symbol('velox.overflowed');
/** The server is shutting down: ask the client to close the connection. */
export const kCloseAfter: unique symbol = Symbol('velox.closeAfter');
/** Keep uWS corked until the current microtasks ran. */
export const kCork: unique symbol = Symbol('velox.cork');
/** True when someone listens to the emitter (a cheap check before emitting). */
export const kHasListeners: unique symbol = Symbol('velox.hasListeners');
/** The lifecycle's intrusive list of responses in progress (a response is on it when it has a previous one, or is its head). */
export const kPrevInflight: unique symbol = Symbol('velox.prevInflight');
export const kNextInflight: unique symbol = Symbol('velox.nextInflight');

// The response's state that its write path (response-write.ts) and helper files (before-head.ts,
// response-stream.ts, event-stream.ts, redirect.ts) share with the class: fields of every response.
/** The response's Lifecycle. */
export const kLife: unique symbol = Symbol('velox.life');
/** uWS's response. */
export const kUres: unique symbol = Symbol('velox.ures');
/** The headers set so far, as a flat list (name, value…), or null. */
export const kHeaders: unique symbol = Symbol('velox.headers');
/** The route's HeadCache, which writes the head. */
export const kHeads: unique symbol = Symbol('velox.heads');
/** Where the response is: corked by uWS, async, done or aborted (response-write.ts's Phase). */
export const kPhase: unique symbol = Symbol('velox.phase');
/** True once the status line and headers went out. */
export const kHeadersSent: unique symbol = Symbol('velox.headersSent');
/** True when the response answers a HEAD request (no body goes out). */
export const kIsHead: unique symbol = Symbol('velox.isHead');
/** The answer carries `Connection: close` (the server is closing). */
export const kClose: unique symbol = Symbol('velox.close');
/** The request asked to close the connection (read only under the keepAliveHeader option). */
export const kCloseAsked: unique symbol = Symbol('velox.closeAsked');
/** What uWS's onWritable calls while something waits for it, else undefined. */
export const kOnWritable: unique symbol = Symbol('velox.onWritable');
/** True once the response's first write() ran the onSend hooks (for HEAD: a GET would send the body in pieces, chunked). */
export const kHooked: unique symbol = Symbol('velox.hooked');
/** The response's beforeHead() state and body transform (a Hold), or null: the rare per-response state, kept in one object so that responses without it carry one field. */
export const kHold: unique symbol = Symbol('velox.hold');
/** A body of declared length written in pieces (a DeclaredBody: write() with a Content-Length set), or null. */
export const kDeclared: unique symbol = Symbol('velox.declared');
/** A reason phrase set through `statusMessage`, else undefined. */
export const kReason: unique symbol = Symbol('velox.reason');
/** Ends the way send() does: through an `end` a middleware replaced, with Content-Length. */
export const kFinish: unique symbol = Symbol('velox.finish');
/** Ends with a last chunk, through an `end` a middleware replaced, else directly. */
export const kEndVia: unique symbol = Symbol('velox.endVia');
/** True when a middleware replaced the response's `write` or `end` (compression). */
export const kReplaced: unique symbol = Symbol('velox.replaced');

// What request-body.ts reaches of the request's private state.
/** The request's body (started now if it was not yet), or null when there is none to read. */
export const kBody: unique symbol = Symbol('velox.body');
/** The error every body read fails with when the framing headers were unsafe, else undefined. */
export const kFraming: unique symbol = Symbol('velox.framing');
/** The Content-Type a body started with, or the record's once `req.headers` is built (`req.json()`'s check). */
export const kContentType: unique symbol = Symbol('velox.contentType');
