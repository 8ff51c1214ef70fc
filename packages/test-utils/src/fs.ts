/** Real temporary directories, removed after the test. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { later } from './cleanup.ts';

/**
 * Makes a directory under os.tmpdir() whose name starts with `prefix`; it is removed, with
 * everything in it, when the test has finished.
 * @example
 * ```ts
 * const dir = await tempDir('velox-static-');
 * await writeFile(join(dir, 'a.txt'), 'a');
 * ```
 */
export async function tempDir(prefix = 'velox-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  later(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
