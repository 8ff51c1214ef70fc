// "Testing your app" in the root README.md: an app of the drop-in express() under supertest, on
// the Express 4 entry (the region the README shows) and on the Express 5 one.
import express5 from '@velox/express/5';
// #region test
import http from 'node:http';
import express from '@velox/express';
import request from 'supertest';
import { expect, it } from 'vitest';

const app = express();
app.get('/users/:id', (req, res) => res.json({ id: req.params.id, tab: req.query.tab }));

it('answers GET /users/:id', async () => {
  await request(app).get('/users/42?tab=a').expect(200, { id: '42', tab: 'a' });
  const res = await request(http.createServer(app)).get('/users/7');
  expect(res.body).toEqual({ id: '7' });
});
// #endregion

it('answers GET /users/:id on the Express 5 entry', async () => {
  const app5 = express5();
  app5.get('/users/:id', (req, res) => res.json({ id: req.params.id, tab: req.query.tab }));
  await request(app5).get('/users/42?tab=a').expect(200, { id: '42', tab: 'a' });
  const res = await request(http.createServer(app5)).get('/users/7');
  expect(res.body).toEqual({ id: '7' });
});
