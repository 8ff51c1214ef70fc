import { listen } from '@velox/test-utils';
import errorhandler from 'errorhandler';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('errorhandler', () => {
  it('answers errors as JSON, HTML or text by the Accept header, with the status, message and stack', async () => {
    const logged: string[] = [];
    const app = server();
    app.get('/boom', () => {
      throw Object.assign(new Error('it broke'), { status: 418, detail: 'extra' });
    });
    app.get('/plain', async () => {
      throw new Error('plain <failure>');
    });
    app.use(errorhandler({ log: (err, str) => logged.push(str) }));
    const url = await listen(app);
    const json = await fetch(`${url}/boom`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(418);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await json.json()) as { error: { message: string; stack: string; detail: string; status: number } };
    expect(body.error).toMatchObject({ message: 'it broke', detail: 'extra', status: 418 });
    expect(body.error.stack).toMatch(/^Error: it broke\n\s+at /);
    const html = await fetch(`${url}/plain`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(500);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await html.text();
    expect(page).toContain('plain &lt;failure&gt;');
    expect(page).toMatch(/<title>Error: plain &lt;failure&gt;<\/title>/);
    const text = await fetch(`${url}/plain`, { headers: { accept: 'text/plain' } });
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toMatch(/^Error: plain <failure>\n\s+at /);
    expect(logged).toHaveLength(3);
  });
});
