/**
 * The chat server: every Velox package in one app. Its default export builds the app without
 * listening, so the same module runs as one process (main.ts) or on every core (@velox/cluster).
 *
 * - @velox/static serves the page, its script and stylesheet, and the uploaded avatars.
 * - @velox/session signs users in (a name, no password) and out.
 * - @velox/router + @velox/validate: the JSON API, with checked bodies and queries.
 * - @velox/ws: live messages per room; the upgrade checks the session.
 * - @velox/multipart: the avatar upload, with size and type limits.
 * - @velox/security-headers, @velox/cors, @velox/compress: helmet's header set on every answer,
 *   the API readable from the front ends listed in `corsOrigins`, answers compressed.
 * - @velox/rate-limit: at most 10 messages per 10 s per user on the message route (shared by
 *   every process through Redis when there is one).
 * - @velox/openapi: the HTTP routes documented in an OpenAPI document at /openapi.json, with a
 *   docs page (Swagger UI, every file served by the app) at /docs.
 * With a Redis URL, sessions, message history and live messages are shared by every process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Next, type Request, type Response, Server, VeloxError } from '@velox/core';
import { compress } from '@velox/compress';
import { cors } from '@velox/cors';
import { multipart } from '@velox/multipart';
import { describeRoute, openapi } from '@velox/openapi';
import { MemoryStore as RateLimitMemory, RedisStore as RateLimitRedis, rateLimit } from '@velox/rate-limit';
import { RedisConnection } from '@velox/redis';
import { Router } from '@velox/router';
import { securityHeaders } from '@velox/security-headers';
import { MemoryStore, RedisStore, session } from '@velox/session';
import { sendFile, serveStatic } from '@velox/static';
import { validate } from '@velox/validate';
import { redisPubSub, type Socket, websocket } from '@velox/ws';
import { z } from 'zod';
import { MemoryMessages, type MessageStore, RedisMessages } from './messages.ts';

declare module '@velox/session' {
  interface SessionData {
    user: string;
    avatar: string;
  }
}

/** Options of the chat app; each has a default from the environment. */
export interface ChatOptions {
  /** Redis for sessions, history and live messages across processes. Default: `REDIS_URL`, else none (one process, memory). */
  redisUrl?: string;
  /** Prefix of every Redis key and channel the app uses. Default: `CHAT_PREFIX`, else `chat:`. */
  prefix?: string;
  /** Secret that signs session cookies (32+ characters). Default: `SESSION_SECRET`, else a random one per start. */
  secret?: string;
  /** Where avatars are written. Default: `UPLOADS_DIR`, else a folder under the OS temp dir. */
  uploadsDir?: string;
  /** Other origins whose pages may call the API with the user's cookie (CORS). Default: `CORS_ORIGINS` (comma-separated), else none. */
  corsOrigins?: string[];
  /** Messages one user may post per 10 seconds. Default: `MESSAGE_LIMIT`, else 10. */
  messageLimit?: number;
}

/** The rooms of the chat. */
export const ROOMS = ['lobby', 'random', 'velox'] as const;
/** Largest avatar, in bytes. */
export const AVATAR_MAX = 512 * 1024;
const AVATAR_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };
const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url));

const room = z.object({ room: z.enum(ROOMS) });
const page = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(30),
  before: z.string().regex(/^\d+-[\w-]+$/, 'before must be a message id').optional(),
});
const avatarFile = z.object({ file: z.string().regex(/^[\w-]+\.(png|jpg|gif|webp)$/, 'No such avatar') });
const newMessage = z.object({
  text: z.string().trim().min(1, 'A message cannot be empty').max(1000, 'A message is at most 1000 characters'),
});
const signIn = z.object({
  name: z.string().trim().min(1, 'Pick a name').max(24, 'A name is at most 24 characters'),
});

// What the routes answer, for the OpenAPI document only (validate() checks requests, never answers).
const chatMessage = z
  .object({
    id: z.string(),
    user: z.string(),
    avatar: z.string().nullable(),
    text: z.string(),
    at: z.number().int().describe('Milliseconds since the epoch'),
  })
  .meta({ id: 'Message' });
const meAnswer = z.object({ name: z.string(), avatar: z.string().nullable().describe('The URL of the avatar, if any') });
const roomsAnswer = z.object({ rooms: z.array(z.object({ name: z.enum(ROOMS) })) });
const historyAnswer = z.object({ messages: z.array(chatMessage).describe('Oldest first'), more: z.boolean().describe('Older messages exist') });
/** Core's default error answer (the chat keeps the default error handler). */
const errorAnswer = z
  .looseObject({ statusCode: z.number().int(), error: z.string(), message: z.string(), code: z.string().optional() })
  .meta({ id: 'Error' });
const backToPage = { 303: { description: 'A redirect to the page (See Other)', schema: null } };

/** What a chat socket carries: who, in which room, for which session. */
interface SocketData {
  user: string;
  session: string;
}

/**
 * Builds the chat app (not listening yet).
 * @example
 * ```ts
 * const app = await createChat({ redisUrl: 'redis://127.0.0.1:6379' });
 * await app.listen(3000);
 * ```
 */
export default async function createChat(options: ChatOptions = {}): Promise<Server> {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? '';
  const prefix = options.prefix ?? process.env.CHAT_PREFIX ?? 'chat:';
  const secret = options.secret ?? process.env.SESSION_SECRET ?? randomBytes(32).toString('base64url');
  const uploadsDir = options.uploadsDir ?? process.env.UPLOADS_DIR ?? join(tmpdir(), 'velox-chat-avatars');
  const corsOrigins = options.corsOrigins ?? (process.env.CORS_ORIGINS ?? '').split(',').filter(Boolean);
  const messageLimit = options.messageLimit ?? Number(process.env.MESSAGE_LIMIT ?? 10);
  mkdirSync(uploadsDir, { recursive: true });

  const app = new Server({ trustProxy: 'loopback' });
  // The document of the HTTP routes below, and its docs page: built at listen(), served from memory.
  await app.register(openapi, {
    info: { title: 'Velox chat', version: '1.0.0', description: 'The HTTP API of the chat; live messages arrive on the WebSocket /ws/rooms/{room}.' },
    path: '/openapi.json',
    ui: '/docs',
    tags: [
      { name: 'session', description: 'Signing in and out, and who is signed in' },
      { name: 'rooms', description: 'Rooms and their messages' },
      { name: 'avatars', description: 'Pictures of the users' },
    ],
    securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sid', description: 'The session cookie that POST /login sets' } },
  });
  // What every answer wears: helmet's header set (the page loads only its own script, style and
  // avatars, which the default policy allows), and compression of what is worth it (the page's
  // files are compressed once by @velox/static, which compress leaves alone).
  app.use(securityHeaders());
  app.use(compress());

  // One Redis connection for the session store, the history and WebSocket publishes (redisPubSub
  // subscribes on a duplicate of it).
  let redis: RedisConnection | undefined;
  let messages: MessageStore = new MemoryMessages();
  if (redisUrl) {
    const connection = new RedisConnection({ url: redisUrl, name: 'chat' });
    await app.register((server) => connection.attach(server));
    messages = new RedisMessages(connection, prefix);
    redis = connection;
    await app.register(redisPubSub, { connection, prefix: `${prefix}ws:` });
  }
  await app.register(session, {
    secret,
    store: redis ? new RedisStore({ connection: redis, prefix: `${prefix}sess:` }) : new MemoryStore(),
    idleTimeout: 60 * 60_000,
    absoluteTimeout: 7 * 24 * 3600_000,
  });
  await app.register(multipart, { limits: { fileSize: AVATAR_MAX, files: 1, fields: 0 } });

  // The page, its script and stylesheet: indexed at start, compressed once, kept in memory.
  app.use('/', serveStatic(PUBLIC, { maxAge: 0 }));
  // Avatars: a route with static's sendFile (ETag, ranges, conditional GET), so an avatar is
  // served the moment its upload is answered (a watched directory waits for files to settle).
  // Each upload gets a new name, so they are cached for good.
  app.get(
    '/avatars/:file',
    describeRoute({ summary: 'An uploaded avatar', tags: ['avatars'], responses: { 200: 'The image', 404: 'No such avatar' } }),
    validate({ params: avatarFile }),
    (req, res) => sendFile(req, res, req.params.file, { root: uploadsDir, maxAge: 365 * 24 * 3600_000, immutable: true }),
  );

  // This process's sockets by session, to close them when their session signs out.
  const sockets = new Map<string, Set<Socket<SocketData>>>();

  // Sign in and out: plain form posts, answered with a redirect to the page.
  app.post(
    '/login',
    describeRoute({
      summary: 'Sign in',
      description:
        'A form post (`application/x-www-form-urlencoded`) with the field `name` (1 to 24 characters). Starts a session (the `sid` cookie) and redirects to the page; a refused name redirects to `/?error=` and the reason.',
      tags: ['session'],
      responses: backToPage,
    }),
    async (req, res) => {
      const form = signIn.safeParse(await req.urlencoded());
      if (!form.success) return res.redirect(303, `/?error=${encodeURIComponent(form.error.issues[0]!.message)}`);
      await req.session.start();
      await req.session.regenerate();
      req.session.set('user', form.data.name);
      res.redirect(303, '/');
    },
  );
  app.post(
    '/logout',
    describeRoute({
      summary: 'Sign out',
      description: "Ends the session, closes the session's sockets in every process, and redirects to the page.",
      tags: ['session'],
      responses: backToPage,
    }),
    async (req, res) => {
      await req.session.start();
      const id = req.session.id;
      await req.session.destroy();
      // The other tabs of this session: closed here, and told in every other process (their
      // pages close the socket; the session is gone, so a new upgrade is refused).
      for (const socket of sockets.get(id) ?? []) socket.close(4001, 'signed out');
      app.publish(sessionTopic(id), JSON.stringify({ type: 'logout' }));
      res.redirect(303, '/');
    },
  );

  // The API for other front ends (a mobile web app on another origin): CORS with the cookie.
  // Before the rate limit and the sign-in check, so that their refusals are readable there too.
  app.use('/api', cors({ origin: corsOrigins, credentials: true, maxAge: 600 }));
  const messageLimiter = rateLimit({
    limit: messageLimit,
    windowMs: 10_000,
    headers: 'draft-8',
    identifier: 'messages',
    keyGenerator: (req) => `${req.session.get('user')}`,
    store: redis ? new RateLimitRedis({ connection: redis, prefix: `${prefix}rl:` }) : new RateLimitMemory(),
  });

  const api = new Router();
  api.use(requireUser);
  // Every route of the API needs the session cookie, and answers 401 without a signed-in user.
  api.use(describeRoute({ security: 'session', responses: { 401: { description: 'Not signed in', schema: errorAnswer } } }));
  api.get(
    '/me',
    describeRoute({ summary: 'Who is signed in', tags: ['session'] }),
    validate({ response: { 200: meAnswer } }),
    (req, res) => res.json({ name: req.session.get('user'), avatar: req.session.get('avatar') ?? null }),
  );
  api.get('/rooms', describeRoute({ summary: 'The rooms', tags: ['rooms'] }), validate({ response: { 200: roomsAnswer } }), (req, res) =>
    res.json({ rooms: ROOMS.map((name) => ({ name })) }),
  );
  api.get(
    '/rooms/:room/messages',
    describeRoute({ summary: "A page of a room's history", description: 'The `limit` messages before `before` (the newest without it), oldest first.', tags: ['rooms'] }),
    validate({ params: room, query: page, response: { 200: historyAnswer } }),
    async (req, res) => {
      res.json(await messages.page(req.params.room, req.query.limit, req.query.before));
    },
  );
  api.post(
    '/rooms/:room/messages',
    messageLimiter,
    describeRoute({
      summary: 'Post a message',
      description: `Sent to every socket open on the room. At most ${messageLimit} messages per 10 s per user (the \`RateLimit\` headers say how many are left).`,
      tags: ['rooms'],
    }),
    validate({ params: room, body: newMessage, response: { 201: z.object({ message: chatMessage }), 429: errorAnswer } }),
    async (req, res) => {
      const message = await messages.add(req.params.room, {
        user: req.session.get('user')!,
        avatar: req.session.get('avatar') ?? null,
        text: req.body.text,
      });
      app.publish(roomTopic(req.params.room), JSON.stringify({ type: 'message', room: req.params.room, message }));
      res.status(201).json({ message });
    },
  );
  api.post(
    '/avatar',
    describeRoute({
      summary: 'Upload an avatar',
      description: `A \`multipart/form-data\` body with one file in the field \`avatar\`: a PNG, JPEG, GIF or WebP image of at most ${AVATAR_MAX / 1024} KiB. Answers its URL, which the user's next messages carry.`,
      tags: ['avatars'],
      responses: {
        201: { description: 'Created', schema: z.object({ avatar: z.string() }) },
        400: { description: 'No file in the field avatar, or a malformed body', schema: errorAnswer },
        413: { description: 'The file is over the size limit', schema: errorAnswer },
        415: { description: 'Not an image of an accepted type', schema: errorAnswer },
      },
    }),
    async (req, res) => {
      let avatar: string | undefined;
      const written: string[] = [];
      try {
        await req.multipart(async (part) => {
          if (!part.file) return;
          const ext = AVATAR_TYPES[part.file.mimeType];
          if (part.name !== 'avatar' || !ext) {
            throw new VeloxError('CHAT_AVATAR_TYPE', 'An avatar must be a PNG, JPEG, GIF or WebP image', { status: 415 });
          }
          const name = `${randomUUID()}.${ext}`;
          written.push(join(uploadsDir, name));
          await part.write(join(uploadsDir, name));
          avatar = `/avatars/${name}`;
        });
      } catch (err) {
        await Promise.all(written.map((path) => rm(path, { force: true })));
        throw err;
      }
      if (!avatar) throw new VeloxError('CHAT_AVATAR_MISSING', 'Send an image in the field "avatar"', { status: 400 });
      req.session.set('avatar', avatar);
      res.status(201).json({ avatar });
    },
  );
  app.use('/api', api);

  // Live messages: one socket per open room. The upgrade checks the session; the socket only
  // listens (messages go through POST, where they are validated).
  app.ws(
    '/ws/rooms/:room',
    websocket({
      upgrade: async (req): Promise<SocketData> => {
        if (!(ROOMS as readonly string[]).includes(req.params.room)) {
          throw new VeloxError('CHAT_NO_ROOM', 'No such room', { status: 404 });
        }
        await req.session.start();
        const user = req.session.get('user');
        if (!user) throw new VeloxError('CHAT_SIGN_IN', 'Sign in first', { status: 401 });
        return { user, session: req.session.id };
      },
      open(socket) {
        socket.subscribe(roomTopic(socket.params.room));
        socket.subscribe(sessionTopic(socket.data.session));
        let mine = sockets.get(socket.data.session);
        if (!mine) sockets.set(socket.data.session, (mine = new Set()));
        mine.add(socket);
      },
      message(socket) {
        socket.close(4002, 'send messages with POST /api/rooms/:room/messages');
      },
      close(socket) {
        const mine = sockets.get(socket.data.session);
        mine?.delete(socket);
        if (mine?.size === 0) sockets.delete(socket.data.session);
      },
      maxPayloadLength: 1024,
      idleTimeout: 120,
    }),
  );

  app.addHook('onClose', () => messages.close());
  return app;
}

function roomTopic(name: string): string {
  return `room:${name}`;
}

function sessionTopic(id: string): string {
  return `session:${id}`;
}

/** Lets signed-in users through; others get 401. */
async function requireUser(req: Request, res: Response, next: Next): Promise<void> {
  await req.session.start();
  if (!req.session.get('user')) return next(new VeloxError('CHAT_SIGN_IN', 'Sign in first', { status: 401 }));
  next();
}
