/**
 * @velox/core: the uWebSockets.js server, the request lifecycle, and the shared interface
 * every Velox package plugs into.
 */
export { Server } from './server.ts';
export { Request } from './request.ts';
export { Response } from './response.ts';
export { PreparedHead, PreparedHeader } from './prepared.ts';
export { VeloxError, ErrorCodes } from './errors.ts';
export { isJsonType } from './body.ts';
export { loadUws, uwsBuild } from './uws.ts';
export { signCookieValue, unsignCookieValue } from './cookies.ts';
export { isMetadataOnly, markMetadataOnly, normalizePrefix, pathSegments, PrefixRelation, prefixMatcher, relateToPrefix } from './routing.ts';
export { contentType, fileContentType } from './content-type.ts';
export { definePlaceholder, isPlaceholder, missingPlugin } from './placeholders.ts';
export { channelNames } from './diagnostics.ts';
export { bodySpillStats } from './body-spill.ts';

export type { ServerOptions, ServerConfig, UseExtension, MiddlewareWrapper } from './options.ts';
export type { Decoration } from './decorate.ts';
export type { RequestLogger } from './request-log.ts';
export type { RequestStartMessage, RouteMatchMessage, RequestErrorMessage, ResponseFinishMessage, WebSocketUpgradeMessage } from './diagnostics.ts';
export type { BodySpillMessage } from './diagnostics.ts';
export type { BodyStreamOptions } from './request-body.ts';
export type { TlsOptions, CloseOptions, ListenInfo, ListenOptions, ListenCallback } from './listen.ts';
export type { InjectInit } from './inject.ts';
export type { CloseOnSignalsOptions, UncaughtPolicy, UncaughtAction, UncaughtOrigin } from './signals.ts';
export type { WebSocketRoute, WebSocketMessage, PublishOptions } from './ws-routes.ts';
export type { Query, Headers, JsonOptions } from './types.ts';
export type { CookieOptions } from './response-cookies.ts';
export type { StreamOptions } from './response-stream.ts';
export type { BodyTransform, BodyStream, BodySink } from './body-transform.ts';
export type { EventOptions, EventStream } from './event-stream.ts';
export type { HeaderValue } from './headers.ts';
export type { PluginFix, PlaceholderKind, PlaceholderTarget } from './placeholders.ts';
export type { VeloxErrorOptions, ErrorCode } from './errors.ts';
export type { Uws, UwsBuild, UwsAttempt } from './uws.ts';
export type { CookieSecret } from './cookies.ts';
export type { PathSegment } from './routing.ts';
export type {
  Handler,
  Middleware,
  ErrorMiddleware,
  Next,
  ErrorHandler,
  Plugin,
  Method,
  RouteDefinition,
  RouteInfo,
  ParamsOf,
  TypedMiddleware,
  RouteRequest,
  RouteHandler,
  Mountable,
  Hooks,
  HookName,
  Logger,
} from './types.ts';
export type { ConstantAnswer } from './route-table.ts';
