/**
 * Every template against the workspace's current sources: apps with every package (one on a
 * Router, one without) and with none, in both languages, rendered by createApp's own renderer,
 * written inside this package (so `@velox/*` resolves to the workspace packages, loaded from
 * their TypeScript sources by tsx), then their own tests run with `node --test` and the
 * TypeScript apps type-checked. create.test.ts does the same from packed tarballs, for fewer
 * packages, with a real install, `npm test` and `npm start`.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { workspaceVersions } from '../scripts/write-versions.mjs';
import { type PackageName, packageChoices } from '../src/choices.ts';
import { renderFiles } from '../src/create.ts';
import type { Language } from '../src/templates/spec.ts';
import { exec, ROOT, SELF } from './helpers.ts';

const ALL = packageChoices.map((c) => c.name);

/** Writes the app into .vitest/apps/ of this package (gitignored), removed after the test. */
async function writeApp(name: string, language: Language, packages: PackageName[]): Promise<string> {
  const dir = join(SELF, '.vitest', 'apps', `${name}-${randomBytes(3).toString('hex')}`);
  const files = renderFiles({ name, language, packages, packageManager: 'npm' }, workspaceVersions());
  for (const [path, content] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** `# pass N` and `# fail N` of node:test's summary. */
function summary(output: string): { pass: number; fail: number } {
  return { pass: Number(/^# pass (\d+)$/m.exec(output)?.[1] ?? -1), fail: Number(/^# fail (\d+)$/m.exec(output)?.[1] ?? -1) };
}

/** The tests the app's own test file has: two for the base routes, one per package but router (it shows in the paths). */
function expectedTests(packages: readonly PackageName[]): number {
  return 2 + packages.filter((p) => p !== 'router').length;
}

const cases: Array<{ name: string; language: Language; packages: PackageName[] }> = [
  { name: 'every-ts', language: 'ts', packages: ALL },
  { name: 'every-js-flat', language: 'js', packages: ALL.filter((p) => p !== 'router') },
  { name: 'bare-ts', language: 'ts', packages: [] },
  { name: 'bare-js', language: 'js', packages: [] },
];

describe('the templates, against the workspace sources', () => {
  for (const { name, language, packages } of cases) {
    it(`makes a ${language === 'ts' ? 'TypeScript' : 'JavaScript'} app with ${packages.length === 0 ? 'no package' : packages.join(', ')} whose own tests pass`, async () => {
      const dir = await writeApp(name, language, packages);
      try {
        const file = `test/app.test.${language}`;
        const run = await exec(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', file], dir);
        expect(run.stderr + run.stdout).toContain('# fail 0');
        expect(summary(run.stdout)).toEqual({ pass: expectedTests(packages), fail: 0 });
        expect(run.code).toBe(0);

        if (language === 'ts') {
          // The workspace packages export their .ts sources: tsc needs allowImportingTsExtensions
          // to read them (docs/getting-started.md); the app's own settings are the rest.
          await writeFile(
            join(dir, 'tsconfig.check.json'),
            JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true, allowImportingTsExtensions: true } }),
          );
          const tsc = await exec(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.check.json'], dir);
          expect(tsc.stdout + tsc.stderr).toBe('');
          expect(tsc.code).toBe(0);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
