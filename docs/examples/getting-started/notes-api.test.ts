// The docs page section of docs/getting-started.md: the document the notes API serves is a valid
// OpenAPI 3.1 document (checked with the validator @velox/openapi's own tests use), holds the
// operations the guide lists, and contains the guide's abridged JSON as shown. (Its curl session
// is played by test/examples.test.ts, like every other.)
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const GUIDE = join(import.meta.dirname, '..', '..', 'getting-started.md');
const MARKER = '<!-- GET /openapi.json, abridged: getting-started/notes-api.test.ts checks it against the running example -->';

/** The JSON block after the marker in the guide. */
function shownDocument(): unknown {
  const lines = readFileSync(GUIDE, 'utf8').split('\n');
  const at = lines.indexOf(MARKER);
  if (at < 0 || lines[at + 1] !== '```json') throw new Error(`docs/getting-started.md has no \`\`\`json block after ${MARKER}`);
  const end = lines.indexOf('```', at + 2);
  return JSON.parse(lines.slice(at + 2, end).join('\n'));
}

let child: ChildProcess;
let base: string;

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'notes-api.ts')], {
    env: { ...process.env, PORT: '0', ADMIN_TOKEN: 's3cret' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const address = out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
      if (address) resolve(address);
    });
    child.once('exit', (code) => reject(new Error(`notes-api.ts exited (${code}) before printing its address`)));
  });
}, 30_000);

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
});

describe('docs/getting-started.md: the docs page', () => {
  it('serves a valid OpenAPI 3.1 document with the operations the guide lists', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as { paths: Record<string, Record<string, { summary?: string; tags?: string[] }>> };
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} [${op.tags?.join(',') ?? ''}] ${op.summary ?? ''}`.trim()),
    );
    expect(operations.sort()).toEqual([
      'GET /admin/stats []',
      'GET /api/notes [notes] All notes',
      'GET /api/notes/{id} [notes] One note',
      'POST /api/notes [notes] Add a note',
      'POST /echo []',
    ]);
  });

  it('holds the abridged JSON the guide shows, as shown', async () => {
    const doc = await (await fetch(`${base}/openapi.json`)).json();
    expect(doc).toMatchObject(shownDocument() as object);
  });

  it('serves the docs page at /docs', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>Notes API</title>');
  });
});
