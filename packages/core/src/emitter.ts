/**
 * A small event emitter whose listener table is made on first use, so a response that nobody
 * listens to pays nothing. Implements what Node's `stream.pipe` and `on-finished` call.
 */
import { kHasListeners } from './symbols.ts';

type Listener = (...args: any[]) => void;

const kEvents = Symbol('velox.events');

export class LazyEmitter {
  // Declared, not defined: the property appears on first use. A class with no fields of its own
  // has a default constructor, which V8 skips when a subclass calls super() (--omit-default-ctors).
  declare [kEvents]: Map<string | symbol, Listener[]> | undefined;

  /**
   * Adds a listener.
   * @example
   * ```ts
   * res.on('finish', () => console.log('sent'));
   * ```
   */
  on(event: string | symbol, listener: Listener): this {
    const events = (this[kEvents] ??= new Map());
    const list = events.get(event);
    if (list) list.push(listener);
    else events.set(event, [listener]);
    return this;
  }

  /** Alias of {@link LazyEmitter.on}. */
  addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  /** Adds a listener that runs before the others. */
  prependListener(event: string | symbol, listener: Listener): this {
    const events = (this[kEvents] ??= new Map());
    events.set(event, [listener, ...(events.get(event) ?? [])]);
    return this;
  }

  /** Adds a listener that runs once. */
  once(event: string | symbol, listener: Listener): this {
    const wrapper = (...args: unknown[]) => {
      this.off(event, wrapper);
      listener.apply(this, args);
    };
    (wrapper as { listener?: Listener }).listener = listener;
    return this.on(event, wrapper);
  }

  /** Removes a listener. */
  off(event: string | symbol, listener: Listener): this {
    const list = this[kEvents]?.get(event);
    if (!list) return this;
    const i = list.findIndex((l) => l === listener || (l as { listener?: Listener }).listener === listener);
    if (i >= 0) list.splice(i, 1);
    return this;
  }

  /** Alias of {@link LazyEmitter.off}. */
  removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }

  /** Removes every listener of an event, or of all events. */
  removeAllListeners(event?: string | symbol): this {
    if (event === undefined) this[kEvents] = undefined;
    else this[kEvents]?.delete(event);
    return this;
  }

  /** Calls the listeners of an event; true if there were any. */
  emit(event: string | symbol, ...args: unknown[]): boolean {
    const list = this[kEvents]?.get(event);
    if (!list || list.length === 0) return false;
    for (const listener of list.slice()) listener.apply(this, args);
    return true;
  }

  /** A copy of an event's listeners (as given to `once`, not its wrapper). */
  listeners(event: string | symbol): Listener[] {
    return (this[kEvents]?.get(event) ?? []).map((l) => (l as { listener?: Listener }).listener ?? l);
  }

  /** Like {@link LazyEmitter.listeners} (Node's name; once-wrappers are unwrapped here too). */
  rawListeners(event: string | symbol): Listener[] {
    return this.listeners(event);
  }

  /** Adds a listener that runs once, before the others. */
  prependOnceListener(event: string | symbol, listener: Listener): this {
    const wrapper = (...args: unknown[]) => {
      this.off(event, wrapper);
      listener.apply(this, args);
    };
    (wrapper as { listener?: Listener }).listener = listener;
    return this.prependListener(event, wrapper);
  }

  /** The events that have listeners. */
  eventNames(): Array<string | symbol> {
    const events = this[kEvents];
    return events ? [...events.keys()].filter((name) => events.get(name)!.length > 0) : [];
  }

  /** There is no limit to warn about; kept for Node's API. */
  setMaxListeners(_n: number): this {
    return this;
  }

  /** No limit: Infinity. */
  getMaxListeners(): number {
    return Number.POSITIVE_INFINITY;
  }

  /** How many listeners an event has. */
  listenerCount(event: string | symbol): number {
    return this[kEvents]?.get(event)?.length ?? 0;
  }

  /** @internal True when anybody listens to anything. */
  get [kHasListeners](): boolean {
    return this[kEvents] !== undefined && this[kEvents].size > 0;
  }
}
