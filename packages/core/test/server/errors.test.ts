import { describeErrorCodes } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, VeloxError } from '../../src/index.ts';

describeErrorCodes('ErrorCodes', ErrorCodes, { readme: new URL('../../README.md', import.meta.url), prefix: 'VELOX_ERR_' });

describe('VeloxError', () => {
  it('exposes client errors and hides server errors by default', () => {
    expect(new VeloxError('X', 'm', { status: 404 }).expose).toBe(true);
    expect(new VeloxError('X', 'm').expose).toBe(false);
    const cause = new Error('root');
    const err = new VeloxError('X', 'm', { status: 502, expose: true, cause, details: { a: 1 } });
    expect([err.status, err.expose, err.cause, err.details, err.code, err.name]).toEqual([502, true, cause, { a: 1 }, 'X', 'VeloxError']);
  });
});
