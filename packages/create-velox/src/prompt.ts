/**
 * The questions, on node's own `readline/promises`: three questions (a name, a language, a list
 * of packages) need no prompt library, and create-velox stays without dependencies, so
 * `npm create velox` downloads one small tarball. This is the one file that knows about readline.
 */
import { createInterface } from 'node:readline/promises';
import { cancelled } from './errors.ts';

/** Asks questions on a terminal. */
export interface Prompter {
  /** Asks `question`; resolves with the answer, trimmed (`fallback` for an empty one). Rejects with VELOX_ERR_CREATE_CANCELLED on Ctrl-C or when the input ends. */
  ask(question: string, fallback?: string): Promise<string>;
  /** Writes a line. */
  say(text: string): void;
  /** Closes the interface (the process can then exit). */
  close(): void;
}

/** @internal A Prompter reading `input` and writing `output`. */
export function prompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  const rl = createInterface({ input, output });
  const stop = new AbortController();
  let closed = false;
  rl.on('SIGINT', () => stop.abort());
  rl.on('close', () => {
    closed = true;
    stop.abort();
  });
  return {
    async ask(question, fallback = '') {
      if (stop.signal.aborted) throw cancelled();
      const shown = fallback ? `${question} (${fallback}) ` : `${question} `;
      try {
        const answer = (await rl.question(shown, { signal: stop.signal })).trim();
        return answer === '' ? fallback : answer;
      } catch (err) {
        if (stop.signal.aborted) {
          if (!closed) output.write('\n');
          throw cancelled();
        }
        throw err;
      }
    },
    say(text) {
      output.write(`${text}\n`);
    },
    close() {
      if (!closed) rl.close();
    },
  };
}
