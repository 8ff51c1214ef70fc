import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, VeloxError } from '../src/index.ts';

describe('ErrorCodes', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('documents every code in the README', () => {
    for (const code of Object.values(ErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_', () => {
    for (const code of Object.values(ErrorCodes)) expect(code).toMatch(/^VELOX_ERR_[A-Z_]+$/);
  });
});

describe('VeloxError', () => {
  it('exposes client errors and hides server errors by default', () => {
    expect(new VeloxError('X', 'm', { status: 404 }).expose).toBe(true);
    expect(new VeloxError('X', 'm').expose).toBe(false);
    const cause = new Error('root');
    const err = new VeloxError('X', 'm', { status: 502, expose: true, cause, details: { a: 1 } });
    expect([err.status, err.expose, err.cause, err.details, err.code, err.name]).toEqual([502, true, cause, { a: 1 }, 'X', 'VeloxError']);
  });
});
