/**
 * Reads one request's multipart body: the body from core's `req.stream()` (uWS paused while
 * anything downstream is full) into the parser, parts out one at a time, every limit checked,
 * and on any failure everything stopped, closed and deleted before the error is handed on.
 */
import { Buffer } from 'node:buffer';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCodes, type Request, VeloxError } from '@velox/core';
import { badInput, limitError, MultipartErrorCodes } from './errors.ts';
import { safeFileName } from './filename.ts';
import { decodeExtValue, fromHeaderText, type PartHeaders, parseParams } from './headers.ts';
import type { Settings } from './limits.ts';
import { createFormParser, type FormParser } from './parser.ts';
import { FieldEntry, FileEntry, type Part, type PartWriter, UploadStream, type WrittenFile } from './part.ts';

const noop = () => {};

/**
 * uWS (v20.51, as v20.30) keeps a connection whose body is arriving only while 160 KB (16 KB/s
 * over its 10 s timeout) come in before the timeout: each time that much has arrived it restarts
 * a 10 s timer, and when the timer runs out it closes the connection (within its 4 s timer
 * granularity). It offers no way to change that (no timeout setter on a response).
 */
const UWS_WINDOW_BYTES = 16 * 1024 * 10;
/** A connection lost this long after the last restart of that timer was most likely cut by it. */
const UWS_TIMEOUT_SUSPECT_MS = 8000;

/** RFC 2046 boundary characters (`bchars`), 1 to 70 of them, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

const enum State {
  Idle = 0,
  Reading = 1,
  Done = 2,
  Closed = 3,
  Failed = 4,
}

interface Waiter {
  resolve: (result: IteratorResult<Part>) => void;
  reject: (err: unknown) => void;
}

/** A part's place in the queue, taken when its header arrives (a field is filled in at its end). */
interface Slot {
  part: Part | undefined;
}

interface Write {
  out: WriteStream;
  closed: Promise<void>;
}

/** @internal One request's multipart body, read as an async iterator of parts. */
export class FormReader implements AsyncIterableIterator<Part>, PartWriter {
  readonly #req: Request;
  readonly #settings: Settings;
  readonly #settled: (reader: FormReader) => void;
  #state = State.Idle;
  #source: Readable | undefined;
  #parser: FormParser | undefined;
  #queue: Slot[] = [];
  #waiters: Waiter[] = [];
  #finished = false;
  #error: unknown;
  #cleanup: Promise<void> | undefined;
  /** The file part handed out last, drained when the next part is asked for if left unread. */
  #current: FileEntry | undefined;
  /** File streams handed out and not yet closed. */
  #streams = new Set<UploadStream>();
  #writes = new Set<Write>();
  /** Files created by write(), deleted if the upload fails. */
  #paths: string[] = [];
  #parts = 0;
  #files = 0;
  #fields = 0;
  #received = 0;
  #windowBytes = 0;
  #windowStart = Date.now();

  constructor(req: Request, settings: Settings, settled: (reader: FormReader) => void) {
    this.#req = req;
    this.#settings = settings;
    this.#settled = settled;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Part>> {
    if (this.#state === State.Idle) {
      try {
        this.#start();
      } catch (err) {
        // Nothing was read or written yet: no clean-up to wait for.
        this.#state = State.Failed;
        this.#error = err;
        this.#cleanup = Promise.resolve();
        this.#settled(this);
        return Promise.reject(err);
      }
    }
    if (this.#state === State.Failed) return this.#failure().then((err) => Promise.reject(err));
    if (this.#state === State.Closed) return Promise.resolve({ done: true, value: undefined });
    const current = this.#current;
    if (current) {
      this.#current = undefined;
      this.#skip(current);
    }
    const first = this.#queue[0];
    if (first?.part) {
      this.#queue.shift();
      return Promise.resolve(this.#handOut(first.part));
    }
    if (this.#state !== State.Reading || (this.#finished && first === undefined)) {
      this.#complete();
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** The loop was left early: stop reading; what was written stays. */
  return(): Promise<IteratorResult<Part>> {
    if (this.#state === State.Failed) return this.#failure().then(() => ({ done: true, value: undefined }));
    if (this.#state !== State.Closed && this.#state !== State.Done) {
      this.#state = State.Closed;
      this.#stopInput();
      for (const stream of this.#streams) stream.destroy();
      this.#streams.clear();
      this.#queue = [];
      for (const waiter of this.#waiters.splice(0)) waiter.resolve({ done: true, value: undefined });
      this.#release();
    }
    return Promise.resolve({ done: true, value: undefined });
  }

  /** Fails the upload with `err` (delete what was written), and rejects. */
  throw(err?: unknown): Promise<IteratorResult<Part>> {
    return this.abandon(err).then((first) => Promise.reject(first));
  }

  /**
   * Fails the upload with `err` unless it failed already; resolves, once everything is closed and
   * deleted, with the error that failed it first (the one to throw).
   */
  abandon(err: unknown): Promise<unknown> {
    this.#fail(err);
    return this.#failure();
  }

  async writeValue(value: string, path: string): Promise<WrittenFile> {
    if (this.#state === State.Failed) throw await this.#failure();
    const bytes = Buffer.from(value);
    try {
      await writeFile(path, bytes, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(path, { force: true });
      throw err;
    }
    this.#paths.push(path);
    if (this.#failed()) {
      // Failed while writing: the clean-up may have run already.
      await rm(path, { force: true });
      throw await this.#failure();
    }
    return { path, size: bytes.length };
  }

  async writeStream(stream: Readable, path: string): Promise<WrittenFile> {
    if (this.#state === State.Failed) throw await this.#failure();
    const out = createWriteStream(path, { flags: 'wx' });
    const write: Write = { out, closed: new Promise((resolve) => out.once('close', () => resolve())) };
    let opened = false;
    out.once('open', () => {
      opened = true;
      this.#paths.push(path);
    });
    this.#writes.add(write);
    try {
      await pipeline(stream, out);
      return { path, size: out.bytesWritten };
    } catch (err) {
      await write.closed;
      if (this.#failed()) throw await this.#failure();
      if (opened) await rm(path, { force: true });
      throw err;
    } finally {
      this.#writes.delete(write);
    }
  }

  #start(): void {
    const req = this.#req;
    const { limits } = this.#settings;
    const header = req.get('content-type');
    const semicolon = header === undefined ? -1 : header.indexOf(';');
    const type = header === undefined ? '' : (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
    if (type !== 'multipart/form-data') {
      throw new VeloxError(
        MultipartErrorCodes.UNSUPPORTED_MEDIA_TYPE,
        header === undefined ? 'Expected a multipart/form-data body; the request has no Content-Type' : `Expected a multipart/form-data body, got ${type || 'an empty Content-Type'}`,
        { status: 415 },
      );
    }
    const params = parseParams(header!)?.params;
    if (!params) throw badInput(MultipartErrorCodes.BAD_BOUNDARY, 'The Content-Type parameters cannot be read');
    const boundary = params.boundary;
    if (boundary === undefined || boundary === '') throw badInput(MultipartErrorCodes.BAD_BOUNDARY, 'The Content-Type has no boundary');
    if (boundary.length > 70) throw badInput(MultipartErrorCodes.BAD_BOUNDARY, `The boundary is ${boundary.length} characters long; at most 70 are allowed`);
    if (!BOUNDARY.test(boundary)) throw badInput(MultipartErrorCodes.BAD_BOUNDARY, 'The boundary holds characters RFC 2046 does not allow');
    const length = req.get('content-length');
    if (length !== undefined && Number(length) > limits.bodySize) throw limitError('bodySize', limits.bodySize);
    // The limit also counts what core holds unread, on disk past its bodyBufferSize, while this
    // reader is paused: a part nobody reads cannot make the server keep more than bodySize.
    const source = req.stream(Number.isSafeInteger(limits.bodySize) ? { limit: limits.bodySize } : undefined);
    const parser = createFormParser(boundary, limits, {
      part: (headers, body) => this.#onPart(headers, body),
      badHeader: (fault) => {
        if (fault.fault === 'size') this.#fail(limitError('headerSize', limits.headerSize));
        else if (fault.fault === 'pairs') this.#fail(limitError('headerPairs', limits.headerPairs));
        else this.#fail(badInput(MultipartErrorCodes.BAD_PART_HEADER, `Malformed part header: ${fault.reason}`));
      },
      unexpectedEnd: () => this.#fail(badInput(MultipartErrorCodes.UNEXPECTED_END, 'The body ended before the closing boundary')),
      finish: () => this.#onFinish(),
    });
    this.#source = source;
    this.#parser = parser;
    this.#state = State.Reading;
    parser.onDrain(() => {
      if (this.#state === State.Reading) source.resume();
    });
    // Stays for good: core destroys the stream with an error when the response ends first.
    source.on('error', this.#onSourceError);
    source.on('data', this.#onData);
    source.on('end', this.#onEnd);
  }

  #onData = (chunk: Buffer): void => {
    this.#received += chunk.length;
    this.#windowBytes += chunk.length;
    if (this.#windowBytes >= UWS_WINDOW_BYTES) {
      this.#windowBytes = 0;
      this.#windowStart = Date.now();
    }
    const { bodySize } = this.#settings.limits;
    if (this.#received > bodySize) return this.#fail(limitError('bodySize', bodySize));
    if (!this.#parser!.write(chunk)) this.#source!.pause();
  };

  #onEnd = (): void => {
    this.#parser!.end();
  };

  #onSourceError = (err: unknown): void => {
    if (this.#state !== State.Reading) return;
    const core = err as VeloxError;
    if (core?.code === ErrorCodes.BODY_TOO_LARGE) return this.#fail(limitError('bodySize', this.#settings.limits.bodySize));
    if (core?.code === ErrorCodes.ABORTED && core.status === 499 && Date.now() - this.#windowStart >= UWS_TIMEOUT_SUSPECT_MS) {
      err = new VeloxError(
        MultipartErrorCodes.TOO_SLOW,
        `The connection closed while the body arrived slower than uWebSockets.js accepts (160 KB within 10 s): it timed the upload out after ${this.#received} bytes`,
        { status: 408, cause: err },
      );
    }
    this.#fail(err);
  };

  #onPart(headers: PartHeaders, body: Readable): void {
    if (this.#state !== State.Reading) return void body.resume();
    const { limits, truncate } = this.#settings;
    const disposition = headers['content-disposition'];
    if (disposition === undefined || disposition.length !== 1) {
      return this.#fail(badInput(MultipartErrorCodes.BAD_PART_HEADER, 'Each part needs one Content-Disposition header'));
    }
    const parsed = parseParams(disposition[0]!);
    if (parsed?.type !== 'form-data') {
      return this.#fail(badInput(MultipartErrorCodes.BAD_PART_HEADER, 'A part\'s Content-Disposition is not "form-data; name=…"'));
    }
    const { params } = parsed!;
    if (params.name === undefined) return this.#fail(badInput(MultipartErrorCodes.BAD_PART_HEADER, 'A part has no name'));
    const name = fromHeaderText(params.name);
    if (Buffer.byteLength(name) > limits.fieldNameSize) return this.#fail(limitError('fieldNameSize', limits.fieldNameSize));
    const isFile = params.filename !== undefined || params['filename*'] !== undefined;
    if (isFile ? ++this.#files > limits.files : ++this.#fields > limits.fields) {
      return this.#fail(isFile ? limitError('files', limits.files) : limitError('fields', limits.fields));
    }
    if (++this.#parts > limits.parts) return this.#fail(limitError('parts', limits.parts));
    const contentType = headers['content-type']?.[0];
    const type = contentType === undefined ? undefined : parseParams(contentType);
    const slot: Slot = { part: undefined };
    this.#queue.push(slot);
    if (isFile) this.#readFile(slot, name, params, type?.type || 'application/octet-stream', headers, body);
    else this.#readField(slot, name, type?.params.charset, body, limits.fieldSize, truncate);
  }

  #readField(slot: Slot, name: string, charset: string | undefined, body: Readable, max: number, truncate: boolean): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    body.on('data', (chunk: Buffer) => {
      if (cut || this.#state !== State.Reading) return;
      if (size + chunk.length > max) {
        if (!truncate) return this.#fail(limitError('fieldSize', max));
        chunks.push(chunk.subarray(0, max - size));
        size = max;
        cut = true;
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    });
    body.on('end', () => {
      if (this.#state !== State.Reading) return;
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      this.#fill(slot, new FieldEntry(this, name, decode(bytes, charset), cut));
    });
  }

  #readFile(slot: Slot, name: string, params: Record<string, string>, mimeType: string, headers: PartHeaders, body: Readable): void {
    const { limits, truncate } = this.#settings;
    const star = params['filename*'] === undefined ? undefined : decodeExtValue(params['filename*']);
    const fileName = safeFileName(star ?? fromHeaderText(params.filename ?? ''));
    const encoding = (headers['content-transfer-encoding']?.[0] ?? '7bit').toLowerCase();
    const stream = new UploadStream(() => body.resume());
    // Destroyed with the upload's error when it fails: never let that go unhandled.
    stream.on('error', noop);
    this.#streams.add(stream);
    const entry = new FileEntry(this, name, { name: fileName, mimeType, encoding, stream });
    let size = 0;
    let draining = false;
    const drain = () => {
      draining = true;
      body.resume();
    };
    body.on('data', (chunk: Buffer) => {
      if (draining || this.#state !== State.Reading) return;
      if (size + chunk.length > limits.fileSize) {
        if (!truncate) return this.#fail(limitError('fileSize', limits.fileSize));
        const keep = limits.fileSize - size;
        if (keep > 0) stream.push(chunk.subarray(0, keep));
        size = limits.fileSize;
        entry.cut = true;
        stream.push(null);
        return drain();
      }
      size += chunk.length;
      if (!stream.push(chunk)) body.pause();
    });
    body.on('end', () => {
      if (!draining && this.#state === State.Reading) stream.push(null);
    });
    stream.on('close', () => {
      this.#streams.delete(stream);
      // The consumer stopped before the end: let the parser go on to the next part.
      if (!stream.readableEnded && !draining) drain();
    });
    this.#fill(slot, entry);
  }

  /** A part is ready: hand out, in order, what waiting consumers can take. */
  #fill(slot: Slot, part: Part): void {
    slot.part = part;
    while (this.#waiters.length > 0 && this.#queue[0]?.part) {
      const ready = this.#queue.shift()!.part!;
      this.#waiters.shift()!.resolve(this.#handOut(ready));
    }
  }

  #handOut(part: Part): IteratorResult<Part> {
    if (part.file) this.#current = part as FileEntry;
    return { done: false, value: part };
  }

  /** Drains a file stream the consumer left unread (or paused), so the next part can come. */
  #skip(entry: FileEntry): void {
    const stream = entry.file.stream;
    if (stream.destroyed || stream.readableEnded) return;
    if (stream.listenerCount('data') > 0 || stream.listenerCount('readable') > 0) return; // being read
    stream.destroy();
  }

  #onFinish(): void {
    if (this.#state !== State.Reading) return;
    this.#finished = true;
    if (this.#queue.length === 0 && this.#waiters.length > 0) this.#complete();
  }

  /** Every part was handed out: the iterator is done. */
  #complete(): void {
    if (this.#state === State.Reading) {
      this.#state = State.Done;
      this.#stopInput();
      this.#release();
    }
    for (const waiter of this.#waiters.splice(0)) waiter.resolve({ done: true, value: undefined });
  }

  #fail(err: unknown): void {
    if (this.#state === State.Failed) return;
    const wasOpen = this.#state === State.Reading || this.#state === State.Idle;
    this.#state = State.Failed;
    this.#error = err;
    this.#stopInput();
    this.#cleanup = this.#removeFiles().then(() => {
      // Only now does the error reach anyone, so an answer sent for it finds the files gone.
      for (const stream of this.#streams) stream.destroy(err as Error);
      this.#streams.clear();
      for (const waiter of this.#waiters.splice(0)) waiter.reject(err);
      if (wasOpen) this.#release();
    });
  }

  /** Whether the upload failed (a method, so that TypeScript does not narrow it across an await). */
  #failed(): boolean {
    return this.#state === State.Failed;
  }

  /** Resolves with the first error once the clean-up is over. */
  async #failure(): Promise<unknown> {
    await this.#cleanup;
    return this.#error;
  }

  async #removeFiles(): Promise<void> {
    const writes = [...this.#writes];
    for (const write of writes) write.out.destroy();
    await Promise.all(writes.map((write) => write.closed));
    await Promise.all(this.#paths.map((path) => rm(path, { force: true }).catch(noop)));
  }

  /** Stops reading: the parser is dropped and the body paused (core drops the rest once the response ends). */
  #stopInput(): void {
    const source = this.#source;
    if (source) {
      source.off('data', this.#onData);
      source.off('end', this.#onEnd);
      source.pause();
    }
    this.#parser?.destroy();
    this.#parser = undefined;
  }

  #release(): void {
    this.#settled(this);
  }

  /**
   * @internal The response ended: stop, as core drops an unread body then. Like leaving the
   * loop early: streams are destroyed, what was written stays, a waiting `next()` is done. When
   * the client left instead, a reader that started fails through its source (VELOX_ERR_ABORTED).
   */
  responseEnded(aborted: boolean): void {
    if (this.#state === State.Idle || (this.#state === State.Reading && !aborted)) void this.return();
  }

  /** @internal For the server's close: fails an upload still running. */
  shutdown(err: unknown): Promise<unknown> {
    return this.abandon(err);
  }
}

/** Decodes a field's bytes: UTF-8, or the charset the part names if the runtime knows it. */
function decode(bytes: Buffer, charset: string | undefined): string {
  if (charset === undefined || /^utf-?8$/i.test(charset)) return bytes.toString();
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString();
  }
}
