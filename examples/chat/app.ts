/**
 * The chat server: every Velox package in one app. Its default export builds the app without
 * listening, so the same module runs as one process (main.ts) or on every core (@velox/cluster).
 *
 * - @velox/static serves the page, its script and stylesheet, and the uploaded avatars.
 * - @velox/session signs users in (a name, no password) and out.
 * - @velox/router + @velox/validate: the JSON API, with checked bodies and queries.
 * - @velox/ws: live messages per room; the upgrade checks the session.
 * - @velox/multipart: the avatar upload, with size and type limits.
 * With REDIS_URL, sessions, message history and live messages are shared by every process.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Request, Server, VeloxError } from '@velox/core';
import { multipart } from '@velox/multipart';
import { Router } from '@velox/router';
import { MemoryStore, RedisStore, session } from '@velox/session';
import { serveStatic } from '@velox/static';
import { validate } from '@velox/validate';
import { redisPubSub, websocket } from '@velox/ws';
import { z } from 'zod';
import { type ChatMessage, MemoryMessages, type MessageStore, RedisMessages } from './messages.ts';

declare module '@velox/session' {
  interface SessionData {
    user: string;
    avatar: string;
  }
}

/** Options of the chat app; every one has a default from the environment. */
export interface ChatOptions {
  /** Redis for sessions, history and live messages across processes. Default: `REDIS_URL`, else none (one process). */
  redisUrl?: string;
  /** Secret that signs session cookies (32+ characters). Default: `SESSION_SECRET`, else a random one per start (sessions end on restart). */
  secret?: string;
  /** Where avatars are written. Default: `UPLOADS_DIR`, else a folder under the OS temp dir. */
  uploadsDir?: string;
}

export const ROOMS = ['lobby', 'random', 'velox'] as const;
const AVATAR_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };
const AVATAR_MAX = 512 * 1024;
const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url));

const roomParams = z.object({ room: z.enum(ROOMS) });
const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(30),
  before: z.string().regex(/^\d+-[\w-]+$/, 'before must be a message id').optional(),
});
const newMessage = z.object({ text: z.string().trim().min(1, 'A message cannot be empty').max(1000, 'A message is at most 1000 characters') });
const signIn = z.object({ name: z.string().trim().min(1, 'Pick a name').max(24, 'A name is at most 24 characters') });

/**
 * Builds the chat app (not listening yet).
 * @example
 * ```ts
 * const app = await createChat({ redisUrl: 'redis://127.0.0.1:6379' });
 * await app.listen(3000);
 * ```
 */
export default async function createChat(options: ChatOptions = {}): Promise<Server> {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL;
  const secret = options.secret ?? process.env.SESSION_SECRET ?? randomUUID() + randomUUID();
  const uploadsDir = options.uploadsDir ?? process.env.UPLOADS_DIR ?? join(tmpdir(), 'velox-chat-avatars');
  mkdirSync(uploadsDir, { recursive: true });

  const app = new Server({ trustProxy: 'loopback' });
  const messages: MessageStore = redisUrl ? await RedisMessages.connect(redisUrl) : new MemoryMessages();
  app.addHook('onClose', () => messages.close());

  await app.register(session, {
    secret,
    store: redisUrl ? new RedisStore({ url: redisUrl, prefix: 'chat:sess:' }) : new MemoryStore(),
    idleTimeout: 60 * 60_000,
    absoluteTimeout: 7 * 24 * 3600_000,
  });
  await app.register(multipart, { limits: { fileSize: AVATAR_MAX, files: 1, fields: 0 } });
  if (redisUrl) await app.register(redisPubSub, { url: redisUrl, prefix: 'chat:ws:' });

  // The page and its assets; avatars from the uploads folder, watched so new ones show at once.
  const site = serveStatic(PUBLIC, { precompressed: true, compress: true, maxAge: 0, index: false });
  const avatars = serveStatic(uploadsDir, { watch: true, immutable: true, maxAge: 365 * 24 * 3600 });
  app.use('/assets', site);
  app.use('/avatars', avatars);
  app.get('/', (req, res) => site.sendFile(req, res, 'index.html'));

  // Sign in and out: plain form posts, answered with a redirect.
  app.post('/login', async (req, res) => {
    const parsed = signIn.safeParse(await req.urlencoded());
    if (!parsed.success) return res.redirect(`/?error=${encodeURIComponent(parsed.error.issues[0]!.message)}`);
    await req.session.start();
    await req.session.regenerate();
    req.session.set('user', parsed.data.name);
    res.redirect(303, '/');
  });
  app.post('/logout', async (req, res) => {
    await req.session.start();
    const id = req.session.id;
    await req.session.destroy();
    // Every socket of this session, in every process, is closed.
    app.publish(sessionTopic(id), JSON.stringify({ type: 'logout' }));
    res.redirect(303, '/');
  });

  const api = new Router();
  api.use(requireUser);
  api.get('/me', (req, res) => res.json({ name: req.session.get('user'), avatar: req.session.get('avatar') ?? null }));
  api.get('/rooms', (req, res) => res.json({ rooms: ROOMS.map((name) => ({ name })) }));
  api.get('/rooms/:room/messages', validate({ params: roomParams, query: pageQuery }), async (req, res) => {
    const page = await messages.page(req.params.room, req.query.limit, req.query.before);
    res.json(page);
  });
  api.post('/rooms/:room/messages', validate({ params: roomParams, body: newMessage }), async (req, res) => {
    const message = await messages.add(req.params.room, {
      user: req.session.get('user')!,
      avatar: req.session.get('avatar') ?? null,
      text: req.body.text,
    });
    app.publish(roomTopic(req.params.room), JSON.stringify({ type: 'message', room: req.params.room, message }));
    res.status(201).json({ message });
  });
  api.post('/avatar', async (req, res) => {
    const written: string[] = [];
    let avatar: string | undefined;
    try {
      await req.multipart(async (part) => {
        if (!part.file || part.name !== 'avatar') return;
        const ext = AVATAR_TYPES[part.file.mimeType];
        if (!ext) throw new VeloxError('CHAT_AVATAR_TYPE', 'An avatar must be a PNG, JPEG, GIF or WebP image', { status: 415 });
        const name = `${randomUUID()}.${ext}`;
        const path = join(uploadsDir, name);
        written.push(path);
        await part.write(path);
        avatar = `/avatars/${name}`;
      });
    } catch (err) {
      await Promise.all(written.map((path) => rm(path, { force: true })));
      throw err;
    }
    if (!avatar) throw new VeloxError('CHAT_AVATAR_MISSING', 'Send the image in a field named "avatar"', { status: 400 });
    req.session.set('avatar', avatar);
    res.status(201).json({ avatar });
  });
  app.use('/api', api);

  // Live messages: one socket per open room. The session is checked on the upgrade.
  app.ws(
    '/ws/rooms/:room',
    websocket({
      upgrade: async (req) => {
        const room = (ROOMS as readonly string[]).includes(req.params.room) ? req.params.room : undefined;
        if (!room) throw new VeloxError('CHAT_NO_ROOM', 'No such room', { status: 404 });
        await req.session.start();
        const user = req.session.get('user');
        if (!user) throw new VeloxError('CHAT_SIGN_IN', 'Sign in first', { status: 401 });
        return { user, room, session: req.session.id };
      },
      open(socket) {
        socket.subscribe(roomTopic(socket.data.room));
        socket.subscribe(sessionTopic(socket.data.session));
      },
      message(socket, message) {
        // Messages are sent with POST (validated); the socket only listens. Pings are answered by uWS.
        if (Buffer.from(message).toString() !== 'ping') socket.close(4002, 'send messages with POST');
      },
      maxPayloadLength: 1024,
      idleTimeout: 120,
    }),
  );
  // A sign-out reaches this process's sockets of that session as a publish: they close with 4001.
  app.addHook('onPublish', ((topic: string, message: string | ArrayBuffer | Uint8Array) => {
    if (!topic.startsWith('session:')) return;
    const text = typeof message === 'string' ? message : Buffer.from(message as ArrayBuffer).toString();
    if (text.includes('"logout"')) closeSession(topic);
  }) as never);

  const sockets = new Set<{ data: { session: string }; close(code?: number, reason?: string): void }>();
  function closeSession(topic: string): void {
    const id = topic.slice('session:'.length);
    for (const socket of sockets) if (socket.data.session === id) socket.close(4001, 'signed out');
  }

  return app;
}

function roomTopic(room: string): string {
  return `room:${room}`;
}

function sessionTopic(id: string): string {
  return `session:${id}`;
}

async function requireUser(req: Request, res: unknown, next: (err?: unknown) => void): Promise<void> {
  await req.session.start();
  if (!req.session.get('user')) return next(new VeloxError('CHAT_SIGN_IN', 'Sign in first', { status: 401 }));
  next();
}

export type { ChatMessage };
void writeFile;
