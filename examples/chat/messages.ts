/**
 * Message history per room: in memory for one process, in Redis (a capped list per room) when
 * several processes share it. Ids sort by time (`<ms>-<random>`), so paging is "the `limit`
 * messages before this id".
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';

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
 * History in Redis: one list per room (`chat:room:<name>`), trimmed to the last 500.
 * @example
 * ```ts
 * const store = await RedisMessages.connect('redis://127.0.0.1:6379');
 * ```
 */
export class RedisMessages implements MessageStore {
  #client: ReturnType<typeof createClient>;

  private constructor(client: ReturnType<typeof createClient>) {
    this.#client = client;
  }

  static async connect(url: string): Promise<RedisMessages> {
    const client = createClient({ url, disableOfflineQueue: true });
    client.on('error', (err: Error) => console.error(`chat history: ${err.message}`));
    await client.connect();
    return new RedisMessages(client);
  }

  async add(room: string, message: Omit<ChatMessage, 'id' | 'at'>): Promise<ChatMessage> {
    const stored = stamp(message);
    const key = `chat:room:${room}`;
    await this.#client.multi().rPush(key, JSON.stringify(stored)).lTrim(key, -KEEP, -1).exec();
    return stored;
  }

  async page(room: string, limit: number, before?: string): Promise<Page> {
    const all = (await this.#client.lRange(`chat:room:${room}`, 0, -1)).map((text) => JSON.parse(text) as ChatMessage);
    return slice(all, limit, before);
  }

  async close(): Promise<void> {
    if (this.#client.isOpen) await this.#client.quit();
  }
}
