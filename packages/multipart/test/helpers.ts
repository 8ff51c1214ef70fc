import { Buffer } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter } from '@velox/test-utils';
import { type MultipartOptions, multipart } from '../src/index.ts';

/** A quiet server with the multipart plugin, closed after the test. */
export async function server(options: MultipartOptions | undefined = undefined, serverOptions: ServerOptions = {}): Promise<Server> {
  const app = closeAfter(new Server({ logger: false, ...serverOptions }), { timeout: 1000 });
  await app.register(multipart, options);
  return app;
}

/** The names in `dir`, sorted. */
export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

export const BOUNDARY = 'VeloxBoundary7MA4YWxkTrZu0gW';

export interface RawPart {
  /** The whole Content-Disposition value; default `form-data; name="<name>"` (+ filename). */
  disposition?: string;
  name?: string;
  filename?: string;
  type?: string;
  /** Extra header lines, written as given. */
  headers?: string[];
  body?: string | Buffer;
}

/** A multipart body, byte for byte; `close: false` leaves out the closing boundary. */
export function formBody(parts: RawPart[], { boundary = BOUNDARY, close = true }: { boundary?: string; close?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.disposition ?? `form-data; name="${part.name ?? 'field'}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    for (const line of part.headers ?? []) head += `${line}\r\n`;
    head += '\r\n';
    chunks.push(Buffer.from(head, 'utf8'), Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Posts a body built by hand with fetch; returns status and parsed JSON (or text). */
export async function post(
  url: string,
  body: Buffer | string,
  contentType: string | undefined = `multipart/form-data; boundary=${BOUNDARY}`,
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const r = await fetch(url, { method: 'POST', body, headers });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, text, headers: r.headers };
}

/** The head of a POST with a multipart body of `length` bytes. */
export function postHead(path: string, length: number, { boundary = BOUNDARY, extra = '' }: { boundary?: string; extra?: string } = {}): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n${extra}\r\n`;
}
