/**
 * Waiting without timing: poll for a condition (generous limits, the machine is shared) rather
 * than sleeping a fixed time.
 */

/**
 * Resolves after `ms` milliseconds. For a pause whose length does not decide the outcome (let a
 * late write arrive before checking that nothing came); to wait for something, use `until`.
 * @example
 * ```ts
 * await sleep(100);
 * expect(app.logs).toHaveLength(2); // and no third line came meanwhile
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` every 25 ms until it returns (or resolves to) true; rejects with
 * `timed out waiting for <what>` after `ms` milliseconds.
 * @example
 * ```ts
 * await until(() => client.inbox.length === 2, 'both messages');
 * await until(async () => !(await accepts(port)), 'the port to be free', 30_000);
 * ```
 */
export async function until(check: () => boolean | Promise<boolean>, what = 'condition', ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Polls `check` every 10 ms until it returns something other than undefined, and resolves with
 * that; rejects after `ms` milliseconds. For values that appear after the response (a log line).
 * @example
 * ```ts
 * const line = await eventually(() => lines.find((l) => l.startsWith('GET /')), 'the log line');
 * ```
 */
export async function eventually<T>(check: () => T | undefined, what = 'a value', ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
