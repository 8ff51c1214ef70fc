// Reads the `// $ …` sessions the example programs carry, and plays their curl commands with
// fetch. A session is what a guide shows a reader typing and what comes back:
//
//   // $ ADMIN_TOKEN=s3cret pnpm exec tsx docs/examples/getting-started/notes-api.ts
//   // Notes API on http://127.0.0.1:3000
//   …
//   // $ curl -s 127.0.0.1:3000/api/notes/1
//   // {"id":"1","text":"buy milk"}
//
// The first command starts the file itself (with environment variables before it); the lines
// after a command, each `// ` and then the text, are what it prints. Port 3000 stands for
// whatever free port the program got.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const EXAMPLES = join(import.meta.dirname, '..');

export interface Step {
  /** The command as written, after `$ `. */
  command: string;
  /** What it prints, line by line. */
  expected: string[];
  /** 1-based line of the command in the file. */
  line: number;
}

export interface Program {
  /** Path from docs/examples, with / separators. */
  file: string;
  /** Environment variables the start command sets. */
  env: Record<string, string>;
  /** The start command and what the program prints first. */
  start: Step;
  /** The requests, in order. */
  steps: Step[];
}

/** Every .ts file under docs/examples but tests, type declarations and node_modules. */
export function exampleFiles(dir = EXAMPLES): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'test' || name.startsWith('.')) continue;
    // A folder with a package.json of its own (production/: the cluster package type-checks and
    // runs it, with the packages it needs) is tested there.
    if (statSync(path).isDirectory()) {
      if (!existsSync(join(path, 'package.json'))) out.push(...exampleFiles(path));
    }
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(relative(EXAMPLES, path).split('\\').join('/'));
  }
  return out.sort();
}

/** The session of a file, or an error saying what is wrong with it; undefined when it has none. */
export function readSession(file: string): Program | Error | undefined {
  const lines = readFileSync(join(EXAMPLES, file), 'utf8').split('\n');
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const command = lines[i]!.match(/^\s*\/\/ \$ (.+)$/);
    if (!command) continue;
    const expected: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const text = lines[j]!.trim();
      if (!text.startsWith('//') || text.startsWith('// $ ') || text.startsWith('// #')) break;
      expected.push(text.replace(/^\/\/ ?/, ''));
    }
    steps.push({ command: command[1]!.trim(), expected, line: i + 1 });
    i = j - 1;
  }
  const listens = /\.listen\(/.test(lines.join('\n'));
  if (steps.length === 0) return listens ? new Error(`${file} listens but shows no session: add "// $ pnpm exec tsx docs/examples/${file}" and the requests a guide shows`) : undefined;
  const [start, ...rest] = steps;
  const parsed = start!.command.match(/^((?:[A-Z_][A-Z0-9_]*=\S* )*)pnpm exec tsx (\S+)$/);
  if (!parsed) return new Error(`${file}:${start!.line}: the first "// $" line must start the file: [VAR=value …] pnpm exec tsx docs/examples/${file}`);
  if (parsed[2] !== `docs/examples/${file}`) return new Error(`${file}:${start!.line}: starts ${parsed[2]}, not docs/examples/${file}`);
  const env: Record<string, string> = {};
  for (const pair of parsed[1]!.trim().split(' ').filter(Boolean)) {
    const eq = pair.indexOf('=');
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  for (const step of rest) {
    if (!step.command.startsWith('curl ')) return new Error(`${file}:${step.line}: only curl commands can follow the start command, got: ${step.command}`);
  }
  return { file, env, start: start!, steps: rest };
}

/** Splits a command line the way a POSIX shell does for quotes (no expansion). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${command}`);
      word += command.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '\\' && j + 1 < command.length) j++;
        word += command[j];
      }
      if (j >= command.length) throw new Error(`unclosed " in: ${command}`);
      inWord = true;
      i = j;
    } else if (c === ' ') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * Plays a curl command with fetch against the program's port, and returns what curl would
 * print. Knows the options the guides use: -s, -X, -H, -d/--data, --json, -o /dev/null, -w.
 */
export async function curl(command: string, port: number): Promise<string> {
  const words = shellWords(command).slice(1);
  let method: string | undefined;
  const headers = new Headers();
  let body: string | undefined;
  let url: string | undefined;
  let discard = false;
  let format = '';
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = () => {
      const value = words[++i];
      if (value === undefined) throw new Error(`${w} needs a value in: ${command}`);
      return value;
    };
    if (w === '-s' || w === '-S' || w === '-sS' || w === '--silent') continue;
    if (w === '-X' || w === '--request') method = next();
    else if (w === '-H' || w === '--header') {
      const h = next();
      const colon = h.indexOf(':');
      headers.set(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
    } else if (w === '-d' || w === '--data' || w === '--data-raw') {
      body = next();
      if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
    } else if (w === '--json') {
      body = next();
      headers.set('content-type', 'application/json');
      headers.set('accept', 'application/json');
    } else if (w === '-o' || w === '--output') {
      if (next() !== '/dev/null') throw new Error(`only -o /dev/null is played, in: ${command}`);
      discard = true;
    } else if (w === '-w' || w === '--write-out') format = next();
    else if (w.startsWith('-')) throw new Error(`curl option ${w} is not played by docs/examples/test/sessions.ts: ${command}`);
    else url = w;
  }
  if (!url) throw new Error(`no URL in: ${command}`);
  const target = new URL(/^https?:\/\//.test(url) ? url : `http://${url}`);
  if (target.port !== '3000') throw new Error(`the examples listen on port 3000 in the guides; got ${url}`);
  target.port = String(port);
  const response = await fetch(target, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  const written = format.replace(/%\{http_code\}/g, String(response.status)).replace(/\\n/g, '\n');
  return (discard ? '' : text) + written;
}
