/**
 * The README's typed-client example, run as a user would: openapi-typescript generates the types
 * from the live document, tsc checks the README's client code against them, and the code calls
 * the app through openapi-fetch.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { later, listen } from '@velox/test-utils';
import { validate } from '@velox/validate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeRoute } from '../src/index.ts';
import { documented } from './helpers.ts';

const require = createRequire(import.meta.url);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** The README's code block that follows `<!-- ${marker} -->`. */
function readmeBlock(marker: string): string {
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no code block after <!-- ${marker} -->`);
  return match[1]!;
}

/**
 * Runs a program with this package as the working directory (where tsx and the libraries
 * resolve). Asynchronous: the app it calls runs in this process.
 */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: PACKAGE, env: { ...process.env, ...env }, timeout: 60_000 });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('a typed client generated from the document (README example)', () => {
  it('generates types with openapi-typescript, type-checks the client with tsc, and calls the app with openapi-fetch', async () => {
    const app = await documented();
    const Item = z.object({ id: z.number().int(), name: z.string() }).meta({ id: 'Item' });
    const items = new Map([[42, { id: 42, name: 'Lamp' }]]);
    app.get(
      '/items/:id',
      describeRoute({ operationId: 'getItem' }),
      validate({ params: z.object({ id: z.coerce.number().int() }), response: { 200: Item, 404: z.object({ error: z.string() }) } }),
      (req, res) => {
        const item = items.get(req.params.id);
        if (item) res.json(item);
        else res.status(404).json({ error: `no item ${req.params.id}` });
      },
    );
    app.post('/items', validate({ body: Item.omit({ id: true }), response: { 201: Item } }), (req, res) => {
      const item = { id: items.size + 100, name: req.body.name };
      items.set(item.id, item);
      res.status(201).json(item);
    });
    const base = await listen(app);

    // Inside node_modules, so that openapi-fetch and @types/node resolve as they do for the package.
    const dir = join(PACKAGE, 'node_modules', '.client-test', String(process.pid));
    mkdirSync(dir, { recursive: true });
    later(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], noEmit: true, skipLibCheck: true }, include: ['*.ts'] }),
    );

    // The README's command, against the live document.
    const command = readmeBlock('client-generate').replace('http://localhost:3000', base).split(' ');
    expect(command.slice(0, 2)).toEqual(['npx', 'openapi-typescript']);
    const generate = await run([join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js'), ...command.slice(2).map((a) => (a === 'api.d.ts' ? join(dir, 'api.d.ts') : a))]);
    expect(generate.status, generate.output).toBe(0);
    expect(readFileSync(join(dir, 'api.d.ts'), 'utf8')).toContain('"/items/{id}"');

    writeFileSync(join(dir, 'client.ts'), readmeBlock('client-example'));
    // Beside it, proof that the types are real: a wrong call does not compile.
    writeFileSync(
      join(dir, 'wrong.ts'),
      "import createClient from 'openapi-fetch';\nimport type { paths } from './api.js';\nconst client = createClient<paths>({ baseUrl: '' });\nawait client.GET('/items/{id}', { params: { path: { id: 'forty-two' } } });\nawait client.POST('/items', { body: { title: 'no name' } });\n",
    );
    const checked = await run([require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')]);
    const errors = checked.output.split('\n').filter((line) => /error TS/.test(line));
    expect(errors.filter((line) => !/\/wrong\.ts\(/.test(line)), checked.output).toEqual([]);
    expect(errors.some((line) => /\/wrong\.ts\(4,.*Type 'string' is not assignable to type 'number'/.test(line)), checked.output).toBe(true);
    expect(errors.some((line) => /\/wrong\.ts\(5,.*'title' does not exist/.test(line)), checked.output).toBe(true);

    const called = await run(['--import', 'tsx', join(dir, 'client.ts')], { API_URL: base });
    expect(called.status, called.output).toBe(0);
    expect(called.output.trim().split('\n')).toEqual(['Lamp', '201 Desk', '404 no item 7']);
  }, 60_000);
});
