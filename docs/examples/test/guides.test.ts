// The guides in docs/ quote the files here; this keeps them equal (scripts/docs-examples.mjs).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkGuides } from '../../../scripts/docs-examples.mjs';
import { exampleFiles } from './sessions.ts';

describe('the guides in docs/', () => {
  const { problems, quoted } = checkGuides() as { problems: string[]; quoted: Set<string> };

  it('quote the example files as they are, and run no code that is not in one', () => {
    expect(problems).toEqual([]);
  });

  it('quote every example file of the guides that have a folder here', () => {
    const guides = new Set([...quoted].map((file) => file.split('/')[0]));
    const unquoted = exampleFiles().filter((file) => guides.has(file.split('/')[0]) && !quoted.has(file));
    expect(unquoted).toEqual([]);
  });
});
