// Runs every example program under docs/examples/ (any .ts file with a `// $ pnpm exec tsx …`
// session; a file that listens without one fails), as one node process with tsx, on a free
// port. Each curl command of its session is played with fetch and must print what the file
// (and so the guide quoting it) says. Last, the program must exit on its own after SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, EXAMPLES, exampleFiles, type Program, readSession } from './sessions.ts';

const files = exampleFiles();

it('finds the example files', () => {
  expect(files).toContain('getting-started/first-server.ts');
});

for (const file of files) {
  const session = readSession(file);
  if (session === undefined) continue;
  if (session instanceof Error) {
    it(`${file} has a session the runner can play`, () => {
      throw session;
    });
    continue;
  }
  describe(`docs/examples/${file}`, () => play(session));
}

interface Running {
  child: ChildProcess;
  port: number;
  first: string;
  stderr: string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function launch(program: Program, scratch: string): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(EXAMPLES, program.file)], {
      cwd: EXAMPLES,
      // A temporary directory of its own, removed afterwards, for files a program writes there.
      env: { ...process.env, ...program.env, PORT: '0', TMPDIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.once('exit', (code, signal) => done({ code, signal }));
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    child.stdout!.on('data', (d) => {
      stdout += d;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      const first = stdout.slice(0, newline);
      const port = first.match(/:(\d+)\b/)?.[1];
      if (!port) return reject(new Error(`${program.file} printed "${first}" first, with no port in it`));
      resolve({ child, port: Number(port), first: first.replace(`:${port}`, ':3000'), stderr, exit });
    });
    exit.then(({ code, signal }) => reject(new Error(`${program.file} exited (${code ?? signal}) before printing its address:\n${stderr}`)));
  });
}

function play(program: Program): void {
  let running: Running | undefined;
  let scratch: string | undefined;
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'velox-example-'));
    running = await launch(program, scratch);
  }, 30_000);
  afterAll(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exit;
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(`$ ${program.start.command}`, () => {
    expect(running!.first).toBe(program.start.expected.join('\n'));
  });

  for (const step of program.steps) {
    it(`$ ${step.command}`, async () => {
      const printed = await curl(step.command, running!.port);
      expect(printed.replace(/\n$/, '')).toBe(step.expected.join('\n'));
    });
  }

  it('exits on its own after SIGTERM', async () => {
    running!.child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000).unref());
    const result = await Promise.race([running!.exit, timeout]);
    expect(result).not.toBe('timeout');
  }, 15_000);
}
