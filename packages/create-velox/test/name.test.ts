import { describe, expect, it } from 'vitest';
import { folderOf, nameProblem } from '../src/name.ts';

describe('nameProblem()', () => {
  it('accepts the names npm accepts for a new package', () => {
    for (const name of ['my-api', 'some-package', 'example.com', 'under_score', 'period.js', '123numeric', 'a', '@npm/thingy', '@jane/foo.js', 'x'.repeat(214)]) {
      expect(nameProblem(name), name).toBeUndefined();
    }
  });

  it('says why npm would refuse a name', () => {
    const refused: Array<[string, string]> = [
      ['', 'it is empty'],
      ['x'.repeat(215), 'it is longer than 214 characters'],
      [' leading-space', 'it starts or ends with a space'],
      ['trailing-space ', 'it starts or ends with a space'],
      ['.start-with-period', 'it starts with a dot'],
      ['_start-with-underscore', 'it starts with an underscore'],
      ['CAPITAL-LETTERS', 'it may not contain capital letters'],
      ['crazy!', "it may not contain any of ~'!()*"],
      ['in(parens)', "it may not contain any of ~'!()*"],
      ['two words', 'it may not contain spaces'],
      ['node_modules', 'node_modules is a reserved name'],
      ['favicon.ico', 'favicon.ico is a reserved name'],
      ['http', 'http is the name of a Node.js built-in module'],
      ['fs', 'fs is the name of a Node.js built-in module'],
      ['@scope', 'a scoped name is written @scope/name'],
      ['@a/b/c', 'a scoped name is written @scope/name'],
      ['@scope/.name', 'a part of it starts with a dot or an underscore'],
      ['@_scope/name', 'a part of it starts with a dot or an underscore'],
      ['s/l/a/s/h', 'it may only contain URL-safe characters: letters, digits and -._'],
      ['node:fs', 'it may only contain URL-safe characters: letters, digits and -._'],
      ['café', 'it may only contain URL-safe characters: letters, digits and -._'],
      ['a%20b', 'it may only contain URL-safe characters: letters, digits and -._'],
    ];
    for (const [name, problem] of refused) expect(nameProblem(name), JSON.stringify(name)).toBe(problem);
  });
});

describe('folderOf()', () => {
  it('is the name, or the part after the scope', () => {
    expect(folderOf('my-api')).toBe('my-api');
    expect(folderOf('@acme/orders-api')).toBe('orders-api');
  });
});
