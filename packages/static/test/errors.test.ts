import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { StaticErrorCodes, serveStatic } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('StaticErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(StaticErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_STATIC_', () => {
    for (const code of Object.values(StaticErrorCodes)) expect(code).toMatch(/^VELOX_ERR_STATIC_[A-Z_]+$/);
  });

  it('throws VeloxErrors that carry the code', () => {
    let thrown: unknown;
    try {
      serveStatic('/definitely/not/here');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(StaticErrorCodes.INVALID_OPTION);
  });
});
