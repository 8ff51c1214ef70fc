import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));
const script = fileURLToPath(new URL('./fixtures/node.ts', import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A Velox process (test/fixtures/node.ts) as a child: its port, its output, and its exit. */
export interface Node {
  port: number;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts test/fixtures/node.ts in a child process with these environment variables. */
export async function startNode(env: Record<string, string> = {}): Promise<Node> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d) => (stdout += d));
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', () => {
      const m = /PORT (\d+)/.exec(stdout);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`the node exited (${code}) before listening: ${stderr}`)));
  });
  return { port, proc, stdout: () => stdout, stderr: () => stderr, exited };
}
