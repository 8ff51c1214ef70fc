// Runs before the tests (package.json "test"): installs Debian's chromium with apt when the
// machine lacks it, so a fresh machine passes the docs page's browser test. Never a browser download.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (...args) => spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0;
  console.log('chromium is missing: installing it with apt-get');
  if (!apt('install', '-y', 'chromium') && !(apt('update') && apt('install', '-y', 'chromium'))) {
    console.error('could not install chromium with apt-get (the browser tests need /usr/bin/chromium)');
    process.exit(1);
  }
}
