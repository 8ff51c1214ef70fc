import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { rawGet, serve, tree } from './helpers.ts';

/** A root inside a parent that holds a secret next to it. */
async function jail(): Promise<{ root: string; parent: string }> {
  const parent = await tree({ 'secret.txt': 'TOP SECRET', 'public/ok.txt': 'ok', 'public/sub/inner.txt': 'inner' });
  return { root: join(parent, 'public'), parent };
}

const TRAVERSALS = [
  '/assets/../secret.txt',
  '/assets/sub/../../secret.txt',
  '/assets/%2e%2e/secret.txt',
  '/assets/%2E%2E/secret.txt',
  '/assets/.%2e/secret.txt',
  '/assets/%2e%2e%2fsecret.txt',
  '/assets/..%2fsecret.txt',
  '/assets/..%2Fsecret.txt',
  '/assets/..%5csecret.txt',
  '/assets/..\\secret.txt',
  '/assets/sub\\..\\..\\secret.txt',
  '/assets/%252e%252e/secret.txt',
  '/assets/%252e%252e%252fsecret.txt',
  '/assets/ok.txt%00.png',
  '/assets/..%00/secret.txt',
  '/assets//etc/passwd',
  '/assets/../../../../../../etc/passwd',
  '/assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/assets/%c0%ae%c0%ae/secret.txt',
  '/assets/..%c0%afsecret.txt',
  '/assets/./../secret.txt',
  `/assets/${'a/'.repeat(2000)}ok.txt`,
];

describe('serveStatic safety', () => {
  for (const target of TRAVERSALS) {
    it(`never serves outside the root for ${target.length > 60 ? `${target.slice(0, 60)}… (${target.length} chars)` : target}`, async () => {
      const { root } = await jail();
      const { port } = await serve(root);
      const r = await rawGet(port, target);
      expect(r.body.toString()).not.toContain('TOP SECRET');
      expect(r.body.toString()).not.toContain('root:');
      // Answered with a 4xx (a malformed escape is a 400, anything not in the index a 404).
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    });
  }

  it('gives a 4xx or closes the connection, never a 2xx or 5xx, for a path over the header limit', async () => {
    const { root } = await jail();
    const { port, url } = await serve(root);
    const r = await rawGet(port, `/assets/${'x'.repeat(20_000)}`);
    if (!r.closed || r.status !== 0) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    // And the server still serves.
    expect((await fetch(`${url}/assets/ok.txt`)).status).toBe(200);
  });

  it("never serves a raw NUL byte in the path: uWS v20.51 answers the request line with its own 505 and closes", async () => {
    const { root } = await jail();
    const { port, url } = await serve(root);
    // uWS v20.51 refuses the request line itself, before any JavaScript runs (v20.30 sent nothing
    // and closed at its idle timeout); then the server still serves.
    const r = await rawGet(port, Buffer.from('/assets/ok.txt\0.png'), '', 3000);
    expect([r.status, r.headers.connection, r.closed]).toEqual([505, 'close', true]);
    expect(r.body.toString()).not.toContain('ok');
    expect((await fetch(`${url}/assets/ok.txt`)).status).toBe(200);
  });

  it('never redirects to another host for /assets//evil.com/ or /assets//evil.com', async () => {
    const root = await tree({ 'evil.com/index.html': 'local dir named evil.com', 'index.html': 'home' });
    const { port } = await serve(root);
    for (const target of ['/assets//evil.com/', '/assets//evil.com', '/assets/%2fevil.com', '/assets/%5cevil.com', '/assets/\\evil.com']) {
      const r = await rawGet(port, target);
      const location = r.headers.location;
      if (location !== undefined) expect(location.startsWith('./')).toBe(true);
      expect(r.status === 301 || (r.status >= 400 && r.status < 500)).toBe(true);
    }
    // The real directory redirects relatively.
    const dir = await rawGet(port, '/assets/evil.com');
    expect(dir.status).toBe(301);
    expect(dir.headers.location).toBe('./evil.com/');
  });

  it('does not serve a symlink that leads outside the root, by default', async () => {
    const { root, parent } = await jail();
    await symlink(join(parent, 'secret.txt'), join(root, 'link.txt'));
    await symlink(parent, join(root, 'up'));
    await symlink(join(root, 'ok.txt'), join(root, 'inside.txt'));
    const { port } = await serve(root);
    expect((await rawGet(port, '/assets/link.txt')).status).toBe(404);
    expect((await rawGet(port, '/assets/up/secret.txt')).status).toBe(404);
    const inside = await rawGet(port, '/assets/inside.txt');
    expect(inside.status).toBe(200);
    expect(inside.body.toString()).toBe('ok');
  });

  it("follows a symlink out of the root only with symlinks: 'follow', and none with 'ignore'", async () => {
    const { root, parent } = await jail();
    await symlink(join(parent, 'secret.txt'), join(root, 'link.txt'));
    await symlink(join(root, 'ok.txt'), join(root, 'inside.txt'));
    const follow = await serve(root, { symlinks: 'follow' });
    expect((await rawGet(follow.port, '/assets/link.txt')).body.toString()).toBe('TOP SECRET');
    const none = await serve(root, { symlinks: 'ignore' });
    expect((await rawGet(none.port, '/assets/inside.txt')).status).toBe(404);
  });

  it('does not loop on a symlink to an ancestor directory', async () => {
    const root = await tree({ 'a/file.txt': 'f' });
    await symlink(root, join(root, 'a', 'loop'));
    const { port } = await serve(root);
    expect((await rawGet(port, '/assets/a/file.txt')).status).toBe(200);
    expect((await rawGet(port, '/assets/a/loop/a/loop/a/file.txt')).status).toBe(404);
  });

  it("ignores .env and .git/config by default (404), denies them with dotfiles: 'deny' (403), serves them with 'allow'", async () => {
    const root = await tree({ '.env': 'API_KEY=1', '.git/config': '[core]', 'ok.txt': 'ok' });
    const ignore = await serve(root);
    expect((await rawGet(ignore.port, '/assets/.env')).status).toBe(404);
    expect((await rawGet(ignore.port, '/assets/.git/config')).status).toBe(404);
    const deny = await serve(root, { dotfiles: 'deny' });
    expect((await rawGet(deny.port, '/assets/.env')).status).toBe(403);
    expect((await rawGet(deny.port, '/assets/.git/config')).status).toBe(403);
    expect((await rawGet(deny.port, '/assets/.git/missing')).status).toBe(403);
    const allow = await serve(root, { dotfiles: 'allow' });
    expect((await rawGet(allow.port, '/assets/.env')).body.toString()).toBe('API_KEY=1');
    expect((await rawGet(allow.port, '/assets/.git/config')).body.toString()).toBe('[core]');
  });

  it('answers 404, never 5xx, for a file the server may not read', async () => {
    if (process.getuid?.() === 0) {
      // root reads everything: check the answer for a file that turns into a directory instead.
      const root = await tempDir();
      await writeFile(join(root, 'x.txt'), 'x');
      const { port } = await serve(root, { watch: false });
      const { rm } = await import('node:fs/promises');
      await rm(join(root, 'x.txt'));
      await mkdir(join(root, 'x.txt'));
      const r = await rawGet(port, '/assets/x.txt');
      expect(r.status).toBe(404);
      return;
    }
    const root = await tree({ 'locked.txt': 'no' });
    const { chmod } = await import('node:fs/promises');
    await chmod(join(root, 'locked.txt'), 0);
    const { port } = await serve(root);
    const r = await rawGet(port, '/assets/locked.txt');
    expect([403, 404]).toContain(r.status);
  });
});
