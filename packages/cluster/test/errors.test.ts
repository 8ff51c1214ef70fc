import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { ClusterErrorCodes, cluster } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('ClusterErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(ClusterErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_CLUSTER_', () => {
    for (const code of Object.values(ClusterErrorCodes)) expect(code).toMatch(/^VELOX_ERR_CLUSTER_[A-Z_]+$/);
  });

  it('rejects with VeloxErrors that carry the code', async () => {
    const err = await cluster({ entry: new URL('./fixtures/nowhere.ts', import.meta.url), port: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(VeloxError);
    expect(err.code).toBe(ClusterErrorCodes.INVALID_ENTRY);
  });
});
