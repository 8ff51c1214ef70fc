// @velox/cluster with one worker process (started with --conditions=built, like velox.mjs).
import { start } from './primary.mjs';

await start(1);
