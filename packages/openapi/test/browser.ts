/**
 * The browser the docs page's test drives: Debian's chromium through playwright-core (never a
 * browser download). ensure-chromium.mjs, run before the tests, installs the apt package when missing.
 */
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A headless chromium. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
