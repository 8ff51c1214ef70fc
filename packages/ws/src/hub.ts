/**
 * Per server: which topics have subscribers in this process, followed through uWS's
 * `subscription` event (it reports each topic's subscriber count across the whole app as
 * sockets subscribe, unsubscribe and close). `redisPubSub` watches it to subscribe in Redis
 * only to topics some local socket wants.
 */
import type { Server } from '@velox/core';

/** Told when a topic gains its first local subscriber (`true`) or loses its last (`false`). */
export type TopicWatcher = (topic: string, subscribed: boolean) => void;

/** @internal */
export class Hub {
  /** Topics with local subscribers, kept while someone watches. */
  readonly topics = new Set<string>();
  #watcher: TopicWatcher | undefined;

  get watched(): boolean {
    return this.#watcher !== undefined;
  }

  /** Follows topic changes; one watcher per server. Returns a function that stops it. */
  watch(watcher: TopicWatcher): () => void {
    this.#watcher = watcher;
    return () => {
      if (this.#watcher === watcher) this.#watcher = undefined;
      this.topics.clear();
    };
  }

  /** A topic's subscriber count went from 0 or to 0. */
  changed(topic: string, count: number): void {
    const watcher = this.#watcher;
    if (watcher === undefined) return;
    if (count > 0) {
      if (this.topics.has(topic)) return;
      this.topics.add(topic);
      watcher(topic, true);
    } else if (this.topics.delete(topic)) {
      watcher(topic, false);
    }
  }
}

const hubs = new WeakMap<Server, Hub>();

/** @internal The hub of a server, made on first use. */
export function hubOf(server: Server): Hub {
  let hub = hubs.get(server);
  if (hub === undefined) hubs.set(server, (hub = new Hub()));
  return hub;
}
