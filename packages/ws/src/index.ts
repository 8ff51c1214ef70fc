/**
 * @velox/ws: WebSocket routes for Velox. Sockets that cannot crash the process, backpressure you
 * can see, topics, and a publish that reaches every process sharing a Redis.
 */
export { websocket } from './websocket.ts';
export { Socket } from './socket.ts';
export { redisPubSub } from './pubsub.ts';
export { WsErrorCodes } from './errors.ts';

export type { WebSocketBehavior, SocketHolder } from './websocket.ts';
export type { SendStatus } from './socket.ts';
export type { RedisPubSubOptions } from './pubsub.ts';
export type { WsErrorCode } from './errors.ts';
