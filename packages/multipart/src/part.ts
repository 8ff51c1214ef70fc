/**
 * The parts a handler or a loop gets: text fields and files.
 */
import { Readable } from 'node:stream';

/** What {@link Part.write} resolves with. */
export interface WrittenFile {
  /** The path written to. */
  path: string;
  /** Bytes written. */
  size: number;
}

/**
 * A file part's details and content.
 * @example
 * ```ts
 * if (part.file) console.log(part.file.name, part.file.mimeType);
 * ```
 */
export interface FileInfo {
  /**
   * The client's file name, reduced to a safe base name (UTF-8 and `filename*` decoded, no path,
   * no control characters). For display and records: never use it as a path.
   */
  readonly name: string;
  /** The part's Content-Type as the client claims it, lower-case, without parameters (`application/octet-stream` when absent). */
  readonly mimeType: string;
  /** The part's Content-Transfer-Encoding, lower-case (`7bit` when absent; informational, nothing is decoded). */
  readonly encoding: string;
  /**
   * The file's bytes, with backpressure up to the client. Read it before asking for the next
   * part; one left unread is drained and destroyed when the next part is asked for.
   */
  readonly stream: Readable;
}

interface PartBase {
  /** The form field's name (UTF-8 decoded; `__proto__` is just a name). */
  readonly name: string;
  /**
   * True when the value or file was cut at its size limit: only with the `truncate` option
   * (otherwise crossing a limit fails the request with 413). For a file, final once its stream ended.
   */
  readonly truncated: boolean;
  /**
   * Streams the file (or, for a text field, its value) to `path`, which must not exist yet
   * (uploads never overwrite). If the upload fails later (a limit, a client leaving, a handler
   * throwing), every file written this way for the request is deleted.
   * @example
   * ```ts
   * const { path, size } = await part.write(`/var/uploads/${crypto.randomUUID()}`);
   * ```
   */
  write(path: string): Promise<WrittenFile>;
}

/**
 * A text field.
 * @example
 * ```ts
 * if (!part.file) fields[part.name] = part.value;
 * ```
 */
export interface FieldPart extends PartBase {
  /** The value, decoded as UTF-8 (or the charset the part names). */
  readonly value: string;
  readonly file: undefined;
}

/**
 * A file.
 * @example
 * ```ts
 * if (part.file) await part.write(`/tmp/${crypto.randomUUID()}`);
 * ```
 */
export interface FilePart extends PartBase {
  readonly value: undefined;
  readonly file: FileInfo;
}

/**
 * One part of a multipart/form-data body: a text field (`value`) or a file (`file`).
 * @example
 * ```ts
 * for await (const part of req.parts()) {
 *   if (part.file) await part.write(`/tmp/${crypto.randomUUID()}`);
 *   else console.log(part.name, part.value);
 * }
 * ```
 */
export type Part = FieldPart | FilePart;

/** How a part writes itself: the request's reader, which tracks what was written. */
export interface PartWriter {
  writeValue(value: string, path: string): Promise<WrittenFile>;
  writeStream(stream: Readable, path: string): Promise<WrittenFile>;
}

/** @internal */
export class FieldEntry implements FieldPart {
  readonly name: string;
  readonly value: string;
  readonly file = undefined;
  readonly truncated: boolean;
  readonly #writer: PartWriter;

  constructor(writer: PartWriter, name: string, value: string, truncated: boolean) {
    this.#writer = writer;
    this.name = name;
    this.value = value;
    this.truncated = truncated;
  }

  write(path: string): Promise<WrittenFile> {
    return this.#writer.writeValue(this.value, path);
  }
}

/** @internal The stream a file part hands out: fed by the parser, which it asks for more when read. */
export class UploadStream extends Readable {
  #more: () => void;

  constructor(more: () => void) {
    super({ highWaterMark: 64 * 1024 });
    this.#more = more;
  }

  override _read(): void {
    this.#more();
  }
}

/** @internal */
export class FileEntry implements FilePart {
  readonly name: string;
  readonly value = undefined;
  readonly file: FileInfo;
  /** @internal Set when the file was cut at fileSize (truncate mode). */
  cut = false;
  readonly #writer: PartWriter;

  constructor(writer: PartWriter, name: string, file: FileInfo) {
    this.#writer = writer;
    this.name = name;
    this.file = file;
  }

  get truncated(): boolean {
    return this.cut;
  }

  write(path: string): Promise<WrittenFile> {
    return this.#writer.writeStream(this.file.stream, path);
  }
}
