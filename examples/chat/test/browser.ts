/**
 * The browser the chat tests drive: Debian's chromium through playwright-core (never a browser
 * download). `ensureChromium()` installs the apt package on a machine that lacks it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Installs Debian's chromium with apt when it is missing (CI starts from a fresh machine). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const apt = (...args: string[]) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (apt('install', '-y', 'chromium').status !== 0) {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    if (apt('install', '-y', 'chromium').status !== 0) throw new Error('could not install chromium with apt-get');
  }
}

/** A headless chromium. */
export function launch(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
