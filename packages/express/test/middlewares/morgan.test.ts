import { eventually, listen } from '@velox/test-utils';
import morgan from 'morgan';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

/** A morgan stream that keeps the lines. */
function capture(): { lines: string[]; stream: { write: (line: string) => void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (line: string) => lines.push(line) } };
}

const CLF_DATE = String.raw`\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} \+0000`;

describe('morgan', () => {
  it('writes the combined format line: address, user, date, request line, status, length, referrer, agent', async () => {
    const { lines, stream } = capture();
    const app = server();
    app.use(morgan('combined', { stream }));
    app.get('/hello', (req, res) => res.send('hello'));
    app.get('/missing', (req, res) => res.status(404).json({ error: 'nope' }));
    const url = await listen(app);
    await (
      await fetch(`${url}/hello?x=1`, {
        headers: { 'user-agent': 'compat-test/1.0', referer: 'http://example.com/from', authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` },
      })
    ).text();
    await (await fetch(`${url}/missing`, { headers: { 'user-agent': 'compat-test/1.0' } })).text();
    await eventually(() => (lines.length === 2 ? true : undefined), 'two log lines');
    expect(lines[0]).toMatch(new RegExp(`^127\\.0\\.0\\.1 - ada \\[${CLF_DATE}\\] "GET /hello\\?x=1 HTTP/1\\.1" 200 5 "http://example\\.com/from" "compat-test/1\\.0"\\n$`));
    expect(lines[1]).toMatch(new RegExp(`^127\\.0\\.0\\.1 - - \\[${CLF_DATE}\\] "GET /missing HTTP/1\\.1" 404 16 "-" "compat-test/1\\.0"\\n$`));
  });

  it('writes the dev format line, colored by status, with the response time and length', async () => {
    const { lines, stream } = capture();
    const app = server();
    app.use(morgan('dev', { stream }));
    app.get('/ok', (req, res) => res.send('ok'));
    app.get('/boom', () => {
      throw new Error('boom');
    });
    app.get('/chunked', (req, res) => {
      res.write('a');
      res.end('b');
    });
    const url = await listen(app);
    for (const path of ['/ok', '/boom', '/chunked']) await (await fetch(`${url}${path}`)).text();
    await eventually(() => (lines.length === 3 ? true : undefined), 'three log lines');
    const time = String.raw`\d+\.\d{3} ms`;
    expect(lines[0]).toMatch(new RegExp(`^\\x1b\\[0mGET /ok \\x1b\\[32m200\\x1b\\[0m ${time} - 2\\x1b\\[0m\\n$`));
    expect(lines[1]).toMatch(new RegExp(`^\\x1b\\[0mGET /boom \\x1b\\[31m500\\x1b\\[0m ${time} - \\d+\\x1b\\[0m\\n$`));
    expect(lines[2]).toMatch(new RegExp(`^\\x1b\\[0mGET /chunked \\x1b\\[32m200\\x1b\\[0m ${time} - -\\x1b\\[0m\\n$`));
  });

  it('logs the full URL from a prefixed mount, and nothing for a skipped request', async () => {
    const { lines, stream } = capture();
    const app = server();
    app.use('/api', morgan(':method :url :status', { stream, skip: (req) => req.originalUrl === '/api/health' }));
    app.get('/api/users', (req, res) => res.json([]));
    app.get('/api/health', (req, res) => res.send('up'));
    const url = await listen(app);
    await (await fetch(`${url}/api/health`)).text();
    await (await fetch(`${url}/api/users`)).text();
    await eventually(() => (lines.length === 1 ? true : undefined), 'one log line');
    expect(lines).toEqual(['GET /api/users 200\n']);
  });
});
