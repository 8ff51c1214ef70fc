/**
 * Which content types are worth compressing: mime-db's `compressible` flag (through the
 * `compressible` package: text/*, JSON, JavaScript, SVG, XML… yes; images, video, audio, archives,
 * fonts already compressed… no), plus the app's `customTypes`, minus Server-Sent Events unless
 * asked. The only file of the package that imports `compressible`. Decisions are remembered per
 * Content-Type value in a small table (an app sends few distinct ones).
 */
import compressible from 'compressible';

/**
 * What `customTypes` may be: a RegExp tested against the Content-Type value, or a function of it.
 * @example
 * ```ts
 * app.use(compress({ customTypes: /^application\/(?:x-protobuf|vnd\.my-format)/ }));
 * app.use(compress({ customTypes: (type) => type.startsWith('application/x-ndjson') }));
 * ```
 */
export type CustomTypes = RegExp | ((contentType: string) => boolean);

/** Distinct Content-Type values remembered per `compress()`; when full, the oldest goes. */
const CACHE_SIZE = 256;
/** Longer Content-Type values are decided each time and not remembered. */
const MAX_CACHED_LENGTH = 256;

const EVENT_STREAM = /^\s*text\/event-stream\s*(?:;|$)/i;

/** @internal Decides, per `compress()`, whether a Content-Type value may be compressed. */
export class TypeFilter {
  readonly #custom: ((contentType: string) => boolean) | undefined;
  readonly #sse: boolean;
  readonly #seen = new Map<string, boolean>();

  constructor(custom: CustomTypes | undefined, sse: boolean) {
    if (custom instanceof RegExp) {
      // A /g or /y RegExp keeps a position between test() calls: a copy without them does not.
      const re = custom.global || custom.sticky ? new RegExp(custom.source, custom.flags.replace(/[gy]/g, '')) : custom;
      this.#custom = (type) => re.test(type);
    } else this.#custom = custom;
    this.#sse = sse;
  }

  /** Whether a body of this Content-Type is compressed (when everything else allows it). */
  allows(contentType: string): boolean {
    const known = this.#seen.get(contentType);
    if (known !== undefined) return known;
    const allowed = this.#decide(contentType);
    if (contentType.length <= MAX_CACHED_LENGTH) {
      const seen = this.#seen;
      if (seen.size >= CACHE_SIZE) seen.delete(seen.keys().next().value!);
      seen.set(contentType, allowed);
    }
    return allowed;
  }

  #decide(contentType: string): boolean {
    if (EVENT_STREAM.test(contentType)) return this.#sse;
    if (this.#custom?.(contentType) === true) return true;
    return compressible(contentType) === true;
  }
}
