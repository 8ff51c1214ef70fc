/**
 * A least-recently-used list of bodies bounded by their total size in bytes. Items link to
 * each other directly (no Map, no allocation per use): a hit is a few pointer writes.
 */

/** Something the cache holds: its size in bytes, and what to do when it is pushed out. */
export interface Cached {
  /** Bytes it holds (set before `add`). */
  bytes: number;
  /** @internal */
  lruPrev: Cached | null;
  /** @internal */
  lruNext: Cached | null;
  /** @internal */
  inLru: boolean;
  /** Drops the body: called when the item is evicted. */
  evict(): void;
}

/** The byte-bounded LRU list. */
export class ByteLru {
  readonly maxBytes: number;
  #head: Cached | null = null;
  #tail: Cached | null = null;
  #bytes = 0;
  #count = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Items held now. */
  get count(): number {
    return this.#count;
  }

  /** Adds an item as the most recently used, evicting the least recently used ones to make room. False if it can never fit. */
  add(item: Cached): boolean {
    if (item.inLru) this.remove(item);
    if (item.bytes > this.maxBytes) return false;
    while (this.#bytes + item.bytes > this.maxBytes && this.#tail) {
      const old = this.#tail;
      this.remove(old);
      old.evict();
    }
    item.inLru = true;
    item.lruPrev = null;
    item.lruNext = this.#head;
    if (this.#head) this.#head.lruPrev = item;
    this.#head = item;
    if (!this.#tail) this.#tail = item;
    this.#bytes += item.bytes;
    this.#count++;
    return true;
  }

  /** Marks an item as just used. */
  touch(item: Cached): void {
    if (!item.inLru || this.#head === item) return;
    const prev = item.lruPrev!;
    const next = item.lruNext;
    prev.lruNext = next;
    if (next) next.lruPrev = prev;
    else this.#tail = prev;
    item.lruPrev = null;
    item.lruNext = this.#head;
    this.#head!.lruPrev = item;
    this.#head = item;
  }

  /** Takes an item out (without calling its evict). */
  remove(item: Cached): void {
    if (!item.inLru) return;
    const prev = item.lruPrev;
    const next = item.lruNext;
    if (prev) prev.lruNext = next;
    else this.#head = next;
    if (next) next.lruPrev = prev;
    else this.#tail = prev;
    item.lruPrev = item.lruNext = null;
    item.inLru = false;
    this.#bytes -= item.bytes;
    this.#count--;
  }

  /** Empties the cache, evicting everything. */
  clear(): void {
    while (this.#tail) {
      const old = this.#tail;
      this.remove(old);
      old.evict();
    }
  }
}
