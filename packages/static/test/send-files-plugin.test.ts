import { join } from 'node:path';
import { ErrorCodes, isPlaceholder, type VeloxError } from '@velox/core';
import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { sendFiles } from '../src/index.ts';
import { get, server, tree } from './helpers.ts';

/** A member as a plain JavaScript caller sees it (not through @velox/static's types). */
type Loose = Record<string, any>;

describe('sendFiles', () => {
  it('answers res.sendFile() and res.download() with VELOX_ERR_PLUGIN_MISSING, naming the fix, before any server registers it', async () => {
    // The first test of this file: no server of this process registered sendFiles yet, so these
    // are core's placeholders.
    expect(isPlaceholder('response', 'sendFile')).toBe(true);
    const dir = await tree({ 'a.txt': 'A' });
    const app = server();
    const seen: VeloxError[] = [];
    app.setErrorHandler((err, req, res) => {
      seen.push(err as VeloxError);
      res.status(500).send('no');
    });
    app.get('/file', (req, res) => (res as unknown as Loose).sendFile(join(dir, 'a.txt')));
    app.get('/download', (req, res) => (res as unknown as Loose).download(join(dir, 'a.txt')));
    const { url } = await start(app);
    expect([(await get(`${url}/file`)).status, (await get(`${url}/download`)).status]).toEqual([500, 500]);
    expect(seen.map((err) => err.code)).toEqual([ErrorCodes.PLUGIN_MISSING, ErrorCodes.PLUGIN_MISSING]);
    expect(seen[0]!.message).toContain("import { sendFiles } from '@velox/static'; await app.register(sendFiles)");
  });

  it('answers res.sendFile() on server B with the placeholder error when only server A registered sendFiles', async () => {
    const dir = await tree({ 'a.txt': 'only a' });
    const a = server();
    const b = server();
    await a.register(sendFiles);
    const seen: VeloxError[] = [];
    b.setErrorHandler((err, req, res) => {
      seen.push(err as VeloxError);
      res.status(500).send('no');
    });
    for (const app of [a, b]) app.get('/f', (req, res) => res.sendFile('a.txt', { root: dir }));
    const [ua, ub] = await Promise.all([start(a), start(b)]);
    const fromA = await get(`${ua.url}/f`);
    expect([fromA.status, fromA.text]).toEqual([200, 'only a']);
    expect((await get(`${ub.url}/f`)).status).toBe(500);
    expect(seen.map((err) => [err.code, err.message])).toEqual([
      [ErrorCodes.PLUGIN_MISSING, "res.sendFile() needs the sendFiles plugin of @velox/static: import { sendFiles } from '@velox/static'; await app.register(sendFiles)"],
    ]);
    expect(isPlaceholder('response', 'sendFile', b)).toBe(true);
  });

  it('gives res.sendFile() and res.download() to two servers that register it, and not to a third that does not', async () => {
    const dir = await tree({ 'a.txt': 'from a', 'b.txt': 'from b' });
    const a = server();
    const b = server();
    const without = server();
    await a.register(sendFiles);
    await b.register(sendFiles);
    await a.register(sendFiles); // a second registration changes nothing
    expect([isPlaceholder('response', 'sendFile', a), isPlaceholder('response', 'sendFile', b), isPlaceholder('response', 'sendFile', without)]).toEqual([false, false, true]);
    a.get('/f', (req, res) => res.sendFile('a.txt', { root: dir }));
    b.get('/f', (req, res) => res.download(join(dir, 'b.txt'), 'bee.txt'));
    let missing: VeloxError | undefined;
    without.get('/f', (req, res) => {
      try {
        return res.sendFile('a.txt', { root: dir });
      } catch (err) {
        missing = err as VeloxError;
        throw err;
      }
    });
    const [ua, ub, uw] = await Promise.all([start(a), start(b), start(without)]);
    const fromA = await get(`${ua.url}/f`);
    expect([fromA.status, fromA.text, fromA.headers.get('content-type')]).toEqual([200, 'from a', 'text/plain; charset=utf-8']);
    const fromB = await get(`${ub.url}/f`);
    expect([fromB.status, fromB.text, fromB.headers.get('content-disposition')]).toEqual([200, 'from b', 'attachment; filename=bee.txt']);
    expect((await get(`${uw.url}/f`)).status).toBe(500);
    expect(missing?.code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect(missing?.message).toContain('res.sendFile() needs the sendFiles plugin of @velox/static');
  });

  it('keeps working on a server after another server closed', async () => {
    const dir = await tree({ 'a.txt': 'still here' });
    const first = server();
    const second = server();
    await first.register(sendFiles);
    await second.register(sendFiles);
    for (const app of [first, second]) app.get('/f', (req, res) => res.sendFile(join(dir, 'a.txt')));
    await start(first);
    const { url } = await start(second);
    await first.close();
    expect((await get(`${url}/f`)).text).toBe('still here');
  });
});
