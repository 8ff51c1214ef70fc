import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { Router, RouterErrorCodes } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('RouterErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(RouterErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_ROUTER_', () => {
    for (const code of Object.values(RouterErrorCodes)) expect(code).toMatch(/^VELOX_ERR_ROUTER_[A-Z_]+$/);
  });

  it('throws VeloxErrors that carry the code', () => {
    const r = new Router();
    r.get('/a', (_req, res) => res.end());
    let thrown: unknown;
    try {
      r.get('/a', (_req, res) => res.end());
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(RouterErrorCodes.DUPLICATE_ROUTE);
  });
});
