import type { Versions } from '../src/versions.ts';
/** The versions of this release, read from the workspace: what dist/versions.json holds. */
export function workspaceVersions(): Versions;
