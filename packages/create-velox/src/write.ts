/**
 * Writing the app: all of it or nothing. The files go to a hidden folder beside the target first,
 * which then becomes the target (a rename), so a failure halfway leaves no half-made app behind.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { targetNotEmpty } from './errors.ts';

/** Entries a folder may hold and still count as empty (a fresh `git init`). */
const IGNORED = new Set(['.git']);

/**
 * @internal Throws VELOX_ERR_CREATE_TARGET_NOT_EMPTY unless `dir` is absent, or an empty folder.
 * Returns whether it exists.
 */
export async function checkTarget(dir: string, shown: string): Promise<boolean> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (!stats.isDirectory()) throw targetNotEmpty(`${shown} exists and is not a folder: pick another name, or remove it`);
  const entries = (await readdir(dir)).filter((e) => !IGNORED.has(e));
  if (entries.length > 0) {
    const listed = entries.slice(0, 3).join(', ') + (entries.length > 3 ? `, and ${entries.length - 3} more` : '');
    throw targetNotEmpty(`${shown} is not empty (it holds ${listed}): pick another name, or empty the folder first`);
  }
  return true;
}

/** @internal Writes `files` (relative path → content) into `dir`, which is absent or empty: all of them or none. */
export async function writeAll(dir: string, shown: string, files: ReadonlyMap<string, string>): Promise<void> {
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true });
  const staging = join(parent, `.${basename(dir)}.create-velox-${randomBytes(4).toString('hex')}`);
  try {
    for (const [path, content] of files) {
      const file = join(staging, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    // Checked again here: something may have appeared in the folder while we wrote.
    const exists = await checkTarget(dir, shown);
    if (!exists) {
      await rename(staging, dir);
      return;
    }
    const moved: string[] = [];
    try {
      for (const entry of await readdir(staging)) {
        await rename(join(staging, entry), join(dir, entry));
        moved.push(entry);
      }
    } catch (err) {
      for (const entry of moved) await rm(join(dir, entry), { recursive: true, force: true });
      throw err;
    }
    await rmdir(staging);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}
