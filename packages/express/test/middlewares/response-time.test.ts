import { listen } from '@velox/test-utils';
import responseTime from 'response-time';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('response-time', () => {
  it('sets X-Response-Time on every way of answering, and takes digits and a suffix option', async () => {
    const app = server();
    app.use('/plain', responseTime());
    app.use('/custom', responseTime({ digits: 0, suffix: false, header: 'x-took' }));
    app.get('/plain/send', (req, res) => res.send('x'));
    app.get('/plain/end', (req, res) => res.end('x'));
    app.get('/plain/write', (req, res) => {
      res.write('x');
      res.end();
    });
    app.get('/custom', (req, res) => res.json({}));
    const url = await listen(app);
    for (const path of ['/plain/send', '/plain/end', '/plain/write']) {
      expect((await fetch(`${url}${path}`)).headers.get('x-response-time'), path).toMatch(/^\d+\.\d{3}ms$/);
    }
    expect((await fetch(`${url}/custom`)).headers.get('x-took')).toMatch(/^\d+$/);
  });
});
