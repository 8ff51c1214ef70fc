/** The checks every package's error codes pass (see the house rules: each code prefixed, documented, a VeloxError). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Options of `describeErrorCodes()`. */
export interface ErrorCodesOptions {
  /** The package's README (a file URL or a path): it must name every code in backquotes. */
  readme: URL | string;
  /** The prefix every code starts with, named in the test's title, e.g. `VELOX_ERR_ROUTER_`. */
  prefix: string;
  /** The pattern every code matches; default: the prefix followed by `[A-Z_]+`. */
  pattern?: RegExp;
}

/**
 * Declares `describe(name)` with the two tests every package's codes pass ("documents every code
 * in the README", "prefixes every code with <prefix>"), then the package's own tests, written in
 * `more` (which gets the README's text).
 * @example
 * ```ts
 * describeErrorCodes('RouterErrorCodes', RouterErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_ROUTER_' }, () => {
 *   it('throws VeloxErrors that carry the code', () => {
 *     expect(thrownBy(() => router.get('/a', handler))).toBeInstanceOf(VeloxError);
 *   });
 * });
 * ```
 */
export function describeErrorCodes(name: string, codes: Record<string, string>, options: ErrorCodesOptions, more?: (readme: string) => void): void {
  const pattern = options.pattern ?? new RegExp(`^${options.prefix}[A-Z_]+$`);
  describe(name, () => {
    const readme = readFileSync(options.readme, 'utf8');

    it('documents every code in the README', () => {
      for (const code of Object.values(codes)) expect(readme).toContain(`\`${code}\``);
    });

    it(`prefixes every code with ${options.prefix}`, () => {
      for (const code of Object.values(codes)) expect(code).toMatch(pattern);
    });

    more?.(readme);
  });
}

/**
 * Calls `fn` and returns what it threw (undefined when it returned).
 * @example
 * ```ts
 * const thrown = thrownBy(() => serveStatic('/not/here'));
 * expect(thrown).toBeInstanceOf(VeloxError);
 * ```
 */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
