/**
 * `res.beforeHead()`: tasks that run just before the status line and headers go out, and the
 * writes that wait for a task's promise. Only a response that uses it makes a Hold; the response's
 * write paths ask it whether they may go on (`defer`) only when one exists. The Hold also keeps
 * the response's body transform (`res.transformBody()`): both are rare, and one field for both
 * keeps every other response's object as small as before (a field more made the response's
 * initializer too big for V8 to inline: +1.6% instructions per request on the query scenario).
 */
import type { BodyTransform } from './body-transform.ts';
import { headersSent } from './errors.ts';
import type { Response } from './response.ts';
import { startOver, takeHold, type Transforming } from './response-write.ts';
import { kConfig } from './symbols.ts';

/** A task given to `res.beforeHead()`. */
type HeadTask = (res: Response) => unknown;

/** The beforeHead() state of one response. */
export class Hold {
  /** Tasks not run yet. */
  readonly tasks: HeadTask[];
  /** Writes waiting for a task's promise, in order; null while nothing waits. */
  queue: Array<(go: boolean) => void> | null = null;
  /** Whether an ending write (end, send, stream, upgrade) is among them. */
  ending = false;
  /** The body transform given to `transformBody()`, the stream it opened, or null. */
  transform: BodyTransform | Transforming | null = null;
  readonly #res: Response;

  constructor(res: Response, task: HeadTask | null) {
    this.#res = res;
    this.tasks = task === null ? [] : [task];
  }

  /** True while tasks wait to run or writes wait for one: false for a Hold that only keeps a transform. */
  holds(): boolean {
    return this.tasks.length > 0 || this.queue !== null;
  }

  /**
   * Runs the tasks before `op` writes anything. Returns false when `op` may go on at once (they
   * all finished synchronously); true when it was queued behind them (or dropped, when a task
   * failed). `op(false)` is called when the answer was replaced.
   */
  defer(op: (go: boolean) => void, ending: boolean): boolean {
    const res = this.#res;
    if (this.queue !== null) {
      if (ending && this.ending) throw headersSent();
      this.queue.push(op);
      this.ending ||= ending;
      return true;
    }
    let pending: Promise<unknown> | undefined;
    while (this.tasks.length > 0 && pending === undefined) {
      const task = this.tasks.shift()!;
      let result: unknown;
      try {
        result = task(res);
      } catch (err) {
        failed(res, err, op);
        return true;
      }
      if (result && typeof (result as Promise<unknown>).then === 'function') pending = result as Promise<unknown>;
    }
    if (pending === undefined) {
      takeHold(res);
      return false;
    }
    this.queue = [op];
    this.ending = ending;
    pending.then(
      () => this.#resume(),
      (err: unknown) => failed(res, err),
    );
    return true;
  }

  /** A task's promise settled: run the tasks added meanwhile, then the queued writes in order. */
  #resume(): void {
    const res = this.#res;
    const queue = this.queue!;
    const ending = this.ending;
    this.queue = null;
    this.ending = false;
    const all = (go: boolean): void => {
      for (const op of queue) run(res, op, go);
    };
    if (res.aborted) {
      takeHold(res);
      return all(false);
    }
    if (this.tasks.length > 0 && this.defer(all, ending)) return;
    takeHold(res);
    all(true);
  }
}

/** Runs a queued write; one that throws (a bug in a handler) is logged, as nobody awaits it. */
function run(res: Response, op: (go: boolean) => void, go: boolean): void {
  try {
    op(go && res.writable);
  } catch (err) {
    res.server[kConfig].logger?.error(err);
  }
}

/** A beforeHead task failed: drop the answer that was waiting and let the error handler answer. */
function failed(res: Response, err: unknown, op?: (go: boolean) => void): void {
  const hold = takeHold(res);
  const queue = hold?.queue ?? [];
  if (hold) hold.queue = null;
  if (op) queue.push(op);
  for (const waiting of queue) run(res, waiting, false);
  if (!res.writable) return;
  startOver(res, err);
}
