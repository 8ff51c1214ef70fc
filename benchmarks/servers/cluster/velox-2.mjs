// @velox/cluster with two worker processes (started with --conditions=built, like velox.mjs).
import { start } from './primary.mjs';

await start(2);
