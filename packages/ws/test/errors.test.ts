import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { websocket, WsErrorCodes } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('WsErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(WsErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_WS_', () => {
    for (const code of Object.values(WsErrorCodes)) expect(code).toMatch(/^VELOX_ERR_WS_[A-Z_]+$/);
  });

  it('throws VeloxErrors that carry the code', () => {
    let thrown: unknown;
    try {
      websocket({ idleTimeout: 3 });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(WsErrorCodes.INVALID_OPTION);
  });
});
