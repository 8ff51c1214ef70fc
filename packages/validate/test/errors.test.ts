import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValidateErrorCodes } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('ValidateErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(ValidateErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_', () => {
    for (const code of Object.values(ValidateErrorCodes)) expect(code).toMatch(/^VELOX_ERR_(VALIDATION|VALIDATE_[A-Z_]+)$/);
  });
});
