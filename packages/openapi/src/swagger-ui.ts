/**
 * The one file that knows `swagger-ui-dist`: the docs page, its script that starts Swagger UI,
 * and Swagger UI's own files, all served by the app (nothing is fetched from another host:
 * the validator badge, which Swagger UI loads from validator.swagger.io by default, is off, and
 * its stylesheet names no web font).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A file of the docs page: where it is served (under the UI's path), its type, and how to read it. */
export interface UiFile {
  name: string;
  contentType: string;
  read: () => Buffer | string;
}

/** The files Swagger UI needs, read from swagger-ui-dist when first asked for. */
const DIST = [
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['index.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
] as const;


function distDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** The page (at the UI's path and that path with a slash), its start script, and Swagger UI's files. */
export function uiFiles(base: string, title: string, documentPath: string): { page: string; files: UiFile[] } {
  const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  // Absolute URLs: the page answers at /docs and /docs/, where relative ones would differ.
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<link rel="stylesheet" href="${html(base)}/swagger-ui.css">
<link rel="stylesheet" href="${html(base)}/index.css">
<link rel="icon" type="image/png" href="${html(base)}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${html(base)}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${html(base)}/swagger-ui-bundle.js"></script>
<script src="${html(base)}/init.js"></script>
</body>
</html>
`;
  // A script of its own rather than inline, so that a Content-Security-Policy of script-src 'self' allows it.
  const init = `window.ui = SwaggerUIBundle(${JSON.stringify({
    url: documentPath,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    validatorUrl: null,
  })
    .slice(0, -1)
    .replace(/</g, '\\u003c')}, presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' });\n`;
  const dir = distDir();
  const files: UiFile[] = DIST.map(([name, contentType]) => ({ name, contentType, read: () => readFileSync(join(dir, name)) }));
  files.push({ name: 'init.js', contentType: 'text/javascript; charset=utf-8', read: () => init });
  return { page, files };
}
