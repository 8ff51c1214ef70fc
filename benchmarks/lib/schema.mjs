// The schema of the `validated` scenario, once for every framework that validates with Zod,
// and as JSON Schema for Fastify's own validation.
import { z } from 'zod';

export const payloadSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  tags: z.array(z.string()),
  ok: z.boolean(),
});

export const payloadJsonSchema = {
  type: 'object',
  required: ['id', 'name', 'tags', 'ok'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    ok: { type: 'boolean' },
  },
};
