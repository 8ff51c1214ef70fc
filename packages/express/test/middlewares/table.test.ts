import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../../..');
const pkg = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface Row {
  middleware: string;
  versions: string[];
  status: string;
  test: string;
}

/** The compatibility table's rows in a Markdown file: the table whose last column links into the suite. */
function rows(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| ') && line.includes('express/test/middlewares/'))
    .map((line) => {
      const [middleware, versions, status, test] = line.split('|').slice(1, -1).map((cell) => cell.trim());
      return { middleware: middleware!, versions: versions!.split(', '), status: status!, test: /\[([\w.-]+)\]/.exec(test!)![1]! };
    });
}

/**
 * Installed versions by package name, express@4 included through its "express4" alias: the
 * devDependencies, and the dependencies (body-parser and serve-static, which the Express 5 entry
 * runs, are pinned there).
 */
function installed(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, spec] of [...Object.entries(pkg.dependencies), ...Object.entries(pkg.devDependencies)]) {
    const alias = /^npm:(.+)@(.+)$/.exec(spec);
    const [real, version] = alias ? [alias[1]!, alias[2]!] : [name, spec];
    out.set(real, [...(out.get(real) ?? []), version]);
  }
  return out;
}

describe('the compatibility table', () => {
  const docs = rows(join(root, 'docs/express-compatibility.md'));
  const readme = rows(join(root, 'README.md'));

  it('names, for each row, versions pinned in this package and a test file that exists', () => {
    expect(docs.length).toBeGreaterThanOrEqual(20);
    const versions = installed();
    for (const row of docs) {
      expect(['works', 'works with a note', 'does not work'], row.middleware).toContain(row.status);
      expect(existsSync(join(here, row.test)), row.test).toBe(true);
      for (const entry of row.versions) {
        const [, name, version] = /^(.+)@(\d[\w.-]*)$/.exec(entry) ?? [];
        expect(versions.get(name!) ?? [], `${row.middleware}: ${entry}`).toContain(version);
      }
    }
  });

  it('lists every test file of the suite', () => {
    const listed = new Set(docs.map((row) => row.test));
    const files = readdirSync(here).filter((f) => f.endsWith('.test.ts') && !['table.test.ts', 'exit.test.ts'].includes(f));
    for (const file of files) expect(listed, file).toContain(file);
  });

  it('is the same in the root README', () => {
    expect(readme).toEqual(docs);
  });

  it('explains each "works with a note" in the notes', () => {
    const text = readFileSync(join(root, 'docs/express-compatibility.md'), 'utf8');
    const notes = text.slice(text.indexOf('## The notes'));
    for (const row of docs.filter((r) => r.status !== 'works')) {
      const name = row.versions[0]!.split('@')[0]!;
      expect(notes, row.middleware).toContain(`**${name}.**`);
    }
  });
});
