// Runs before the examples' tests (package.json "test"): installs Debian's prometheus with apt
// when the machine lacks it, so that the Prometheus example's test runs on a fresh machine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PROMETHEUS = '/usr/bin/prometheus';
if (!existsSync(PROMETHEUS)) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (...args) => spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0;
  console.log('prometheus is missing: installing it with apt-get');
  if (!apt('install', '-y', 'prometheus') && !(apt('update') && apt('install', '-y', 'prometheus'))) {
    console.error('could not install prometheus with apt-get (the Prometheus example test needs /usr/bin/prometheus)');
    process.exit(1);
  }
}
