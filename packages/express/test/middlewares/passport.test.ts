import { listen } from '@velox/test-utils';
import express from 'express';
import session from 'express-session';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { describe, expect, it } from 'vitest';
import { cookiesOf, server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    user?: { id: string; name: string };
    isAuthenticated(): boolean;
    logout(callback: (err?: unknown) => void): void;
  }
}

const USERS = [{ id: '1', name: 'ada', password: 'lovelace' }];

function app() {
  const auth = new passport.Passport();
  auth.use(
    new LocalStrategy((username, password, done) => {
      const user = USERS.find((u) => u.name === username);
      if (!user || user.password !== password) return done(null, false, { message: 'Incorrect username or password.' });
      done(null, { id: user.id, name: user.name });
    }),
  );
  auth.serializeUser((user, done) => done(null, (user as { id: string }).id));
  auth.deserializeUser((id: string, done) => done(null, USERS.find((u) => u.id === id) ? { id, name: USERS.find((u) => u.id === id)!.name } : false));
  const velox = server();
  velox.use(express.urlencoded());
  velox.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: false }));
  velox.use(auth.session());
  velox.post('/login', auth.authenticate('local', { successRedirect: '/me', failureRedirect: '/login' }));
  velox.post('/api/login', auth.authenticate('local', { session: false }), (req, res) => res.json({ user: req.user }));
  velox.get('/me', (req, res) => (req.isAuthenticated() ? res.json({ user: req.user }) : res.status(401).json({ user: null })));
  velox.post('/logout', (req, res, next) => req.logout((err) => (err ? next(err) : res.redirect('/'))));
  return velox;
}

const formPost = (url: string, body: string, cookie?: string) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body,
  });

describe('passport with passport-local', () => {
  it('logs in with a form, keeps the user in the session, and logs out', async () => {
    const url = await listen(app());
    const login = await formPost(`${url}/login`, 'username=ada&password=lovelace');
    expect([login.status, login.headers.get('location')]).toEqual([302, '/me']);
    const cookie = cookiesOf(login)[0]!;
    expect(cookie).toMatch(/^connect\.sid=/);
    const me = await fetch(`${url}/me`, { headers: { cookie } });
    expect(await me.json()).toEqual({ user: { id: '1', name: 'ada' } });
    const logout = await formPost(`${url}/logout`, '', cookie);
    expect([logout.status, logout.headers.get('location')]).toEqual([302, '/']);
    expect((await fetch(`${url}/me`, { headers: { cookie } })).status).toBe(401);
  });

  it('redirects a wrong password to the failure page, and answers 401 without a redirect', async () => {
    const url = await listen(app());
    const wrong = await formPost(`${url}/login`, 'username=ada&password=nope');
    expect([wrong.status, wrong.headers.get('location')]).toEqual([302, '/login']);
    const api = await formPost(`${url}/api/login`, 'username=eve&password=x');
    expect(api.status).toBe(401);
    const ok = await formPost(`${url}/api/login`, 'username=ada&password=lovelace');
    expect(await ok.json()).toEqual({ user: { id: '1', name: 'ada' } });
    const missing = await formPost(`${url}/api/login`, 'username=ada');
    expect(missing.status).toBe(400);
  });
});
