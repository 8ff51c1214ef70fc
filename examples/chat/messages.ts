/**
 * Message history per room: in memory for one process, in Redis (a capped list per room) when
 * several processes share it. Ids sort by time (`<ms>-<random>`), so paging is "the `limit`
 * messages before this id".
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '@velox/redis';

/** One chat message, as the API and the sockets send it. */
export interface ChatMessage {
  id: string;
  user: string;
  avatar: string | null;
  text: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** A page of history, oldest first; `more` when older messages exist. */
export interface Page {
  messages: ChatMessage[];
  more: boolean;
}

/** Where the history lives. */
export interface MessageStore {
  add(room: string, message: Omit<ChatMessage, 'id' | 'at'>): Promise<ChatMessage>;
  page(room: string, limit: number, before?: string): Promise<Page>;
  close(): Promise<void>;
}

/** Messages kept per room, newest last; older ones fall off. */
const KEEP = 500;

function stamp(message: Omit<ChatMessage, 'id' | 'at'>): ChatMessage {
  const at = Date.now();
  return { id: `${at}-${randomUUID()}`, at, ...message };
}

function slice(all: ChatMessage[], limit: number, before?: string): Page {
  let end = all.length;
  if (before !== undefined) {
    end = all.findIndex((m) => m.id >= before);
    if (end < 0) end = all.length;
  }
  const start = Math.max(0, end - limit);
  return { messages: all.slice(start, end), more: start > 0 };
}

/**
 * History in this process's memory.
 * @example
 * ```ts
 * const store = new MemoryMessages();
 * await store.add('lobby', { user: 'ana', avatar: null, text: 'hi' });
 * ```
 */
export class MemoryMessages implements MessageStore {
  #rooms = new Map<string, ChatMessage[]>();

  async add(room: string, message: Omit<ChatMessage, 'id' | 'at'>): Promise<ChatMessage> {
    const stored = stamp(message);
    const list = this.#rooms.get(room) ?? [];
    list.push(stored);
    if (list.length > KEEP) list.splice(0, list.length - KEEP);
    this.#rooms.set(room, list);
    return stored;
  }

  async page(room: string, limit: number, before?: string): Promise<Page> {
    return slice(this.#rooms.get(room) ?? [], limit, before);
  }

  async close(): Promise<void> {}
}

/**
 * History in Redis: one list per room (`<prefix>room:<name>`), trimmed to the last 500, on a
 * connection the app shares with its session store.
 * @example
 * ```ts
 * const store = new RedisMessages(connection, 'chat:');
 * ```
 */
export class RedisMessages implements MessageStore {
  #redis: RedisConnection;
  #prefix: string;

  constructor(redis: RedisConnection, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async add(room: string, message: Omit<ChatMessage, 'id' | 'at'>): Promise<ChatMessage> {
    const stored = stamp(message);
    const key = `${this.#prefix}room:${room}`;
    await this.#redis.command('RPUSH', key, JSON.stringify(stored));
    await this.#redis.command('LTRIM', key, -KEEP, -1);
    return stored;
  }

  async page(room: string, limit: number, before?: string): Promise<Page> {
    const list = (await this.#redis.command('LRANGE', `${this.#prefix}room:${room}`, 0, -1)) as string[];
    return slice(
      list.map((text) => JSON.parse(text) as ChatMessage),
      limit,
      before,
    );
  }

  /** The connection belongs to the app, which closes it. */
  async close(): Promise<void> {}
}
