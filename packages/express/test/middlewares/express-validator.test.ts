import { listen } from '@velox/test-utils';
import express from 'express';
import { body, matchedData, param, query, validationResult } from 'express-validator';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('express-validator', () => {
  it('validates and sanitizes body, query and route parameters, and reports errors per field', async () => {
    const app = server();
    app.use(express.json());
    app.post(
      '/users/:id',
      param('id').isInt().toInt(),
      query('notify').optional().isBoolean().toBoolean(),
      body('email').isEmail().normalizeEmail(),
      body('name').trim().isLength({ min: 2 }).withMessage('name is too short'),
      (req, res) => {
        const result = validationResult(req);
        if (!result.isEmpty()) return res.status(422).json({ errors: result.array().map((e) => ({ path: (e as { path: string }).path, msg: e.msg })) });
        res.json(matchedData(req));
      },
    );
    const url = await listen(app);
    const ok = await fetch(`${url}/users/42?notify=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'Ada@Example.COM', name: '  Ada  ' }),
    });
    expect(await ok.json()).toEqual({ id: 42, notify: true, email: 'ada@example.com', name: 'Ada' });
    const bad = await fetch(`${url}/users/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nope', name: 'a' }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      errors: [
        { path: 'id', msg: 'Invalid value' },
        { path: 'email', msg: 'Invalid value' },
        { path: 'name', msg: 'name is too short' },
      ],
    });
  });
});
