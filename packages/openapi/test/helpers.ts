import { Validator } from '@seriousme/openapi-schema-validator';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, listen } from '@velox/test-utils';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { type OpenApiDocument, type OpenApiOptions, openapi } from '../src/index.ts';

export const INFO = { title: 'Shop', version: '1.2.3' };

/** A server closed after the test; `warnings` collects what it logs as warnings. */
export function server(options: ServerOptions = {}): Server & { warnings: any[] } {
  const warnings: any[] = [];
  const app = closeAfter(new Server({ logger: { error: () => {}, warn: (w: unknown) => warnings.push(w) }, ...options }));
  return Object.assign(app, { warnings });
}

/** A server with the plugin registered. */
export async function documented(options: Partial<OpenApiOptions> = {}, serverOptions: ServerOptions = {}): Promise<Server & { warnings: any[] }> {
  const app = server(serverOptions);
  await app.register(openapi, { info: INFO, ...options });
  return app;
}

/** Listens, fetches the document, and checks it is a valid OpenAPI 3.1 document. */
export async function documentOf(app: Server, path = '/openapi.json'): Promise<{ doc: OpenApiDocument; base: string }> {
  const base = await listen(app);
  return { doc: await fetchDocument(base, path), base };
}

/** Fetches a document from a listening server and checks it is a valid OpenAPI 3.1 document. */
export async function fetchDocument(base: string, path = '/openapi.json'): Promise<OpenApiDocument> {
  const res = await fetch(`${base}${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const doc = (await res.json()) as OpenApiDocument;
  await expectValid(doc);
  return doc;
}

// Made once per test file: the validator compiles OpenAPI's schema at its first use (about 0.5 s).
const validator = new Validator();
const ajv = new Ajv2020({ strict: false, validateFormats: false });

/**
 * Checks a document with a real OpenAPI 3.1 validator, then what that validator leaves alone:
 * every schema against JSON Schema 2020-12's meta-schema, every $ref resolves, no `nullable`.
 */
export async function expectValid(doc: OpenApiDocument): Promise<void> {
  const result = await validator.validate(structuredClone(doc) as never);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  for (const schema of schemasIn(doc)) {
    expect(ajv.validateSchema(schema), `${JSON.stringify(schema)}: ${ajv.errorsText()}`).toBe(true);
  }
  const text = JSON.stringify(doc);
  expect(text).not.toContain('"nullable"');
  for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
    expect(ref, 'a $ref into the document').toMatch(/^#\/components\/schemas\//);
    const name = decodeURIComponent(ref!.slice('#/components/schemas/'.length));
    expect(doc.components?.schemas?.[name], `the component ${ref} exists`).toBeDefined();
  }
}

/** Every schema object of a document: components, parameters, bodies, responses. */
function schemasIn(doc: OpenApiDocument): object[] {
  const out: object[] = Object.values(doc.components?.schemas ?? {});
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) out.push(p.schema);
      for (const c of Object.values(op.requestBody?.content ?? {})) out.push(c.schema);
      for (const r of Object.values(op.responses)) for (const c of Object.values(r.content ?? {})) out.push(c.schema);
    }
  }
  return out;
}

/** `METHOD path` of every operation, in document order. */
export function operations(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
}
