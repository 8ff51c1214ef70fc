// What the WebSocket benchmark servers share: the names of the scenarios and the probe, the
// routes each one uses, and a best-effort raise of the open-file limit for 10,000 connections.
import { spawnSync } from 'node:child_process';

/** Scenario and probe names, the servers' first argument. */
export const ECHO = 'ws-echo';
export const FANOUT = 'ws-fanout';
export const IDLE = 'ws-idle';

/** The topic of the fan-out scenario. */
export const TOPIC = 'news';

/**
 * Raises this process's open-file limit (10,000 idle connections need more than the usual
 * 1,024). prlimit on our own pid works when the hard limit allows it, or as root; a failure
 * is left for the probe to report (its connections would fail with EMFILE).
 */
export function raiseFileLimit(limit = 65536) {
  spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${limit}:${limit}`], { stdio: 'ignore' });
}
