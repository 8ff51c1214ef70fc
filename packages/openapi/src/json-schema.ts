/**
 * Standard Schemas to JSON Schema 2020-12, as OpenAPI 3.1 takes it: each library's own converter
 * (the Standard JSON Schema interface, `~standard.jsonSchema`, which Zod 4.2+ and ArkType 2
 * implement; `@valibot/to-json-schema` for Valibot), then one pass that lifts named definitions
 * into `components.schemas`, points `$ref`s at them, and writes what older drafts spell otherwise
 * (tuples as `prefixItems`, `nullable` as a `null` type) in 2020-12's terms.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ValibotConverter } from './valibot.ts';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;
/** Which type of a schema: what it accepts (request parts) or what it gives (responses). */
export type Io = 'input' | 'output';

const COMPONENT = '#/components/schemas/';
const NAME = /^[A-Za-z0-9._-]+$/;
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** The document's `components.schemas`, filled as schemas are converted; one entry per distinct schema and name. */
export class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  #text = new Map<string, string>();

  /** Adds a schema under a name, or under a suffixed name when another schema has it; returns the name used. */
  add(base: string, schema: JsonSchema, io: Io): string {
    const text = JSON.stringify(schema);
    for (const name of candidates(base, io)) {
      const existing = this.#text.get(name);
      if (existing === text) return name;
      if (existing === undefined) {
        this.#text.set(name, text);
        this.schemas[name] = schema;
        return name;
      }
    }
    throw new Error('unreachable');
  }

  /** The name a schema would get, without adding it. */
  peek(base: string, schema: JsonSchema, io: Io): string {
    const text = JSON.stringify(schema);
    for (const name of candidates(base, io)) {
      const existing = this.#text.get(name);
      if (existing === undefined || existing === text) return name;
    }
    throw new Error('unreachable');
  }
}

function* candidates(base: string, io: Io): Generator<string> {
  yield base;
  yield `${base}${io === 'input' ? 'Input' : 'Output'}`;
  for (let i = 2; ; i++) yield `${base}${i}`;
}

/** What converts schemas for one document. */
export class SchemaConverter {
  readonly components = new Components();
  #named: ReadonlyMap<StandardSchemaV1, string>;
  #valibot: ValibotConverter | undefined;
  #valibotDefinitions: Record<string, StandardSchemaV1> = {};
  #namedDone = new Map<string, JsonSchema>();

  constructor(named: ReadonlyMap<StandardSchemaV1, string>, valibot: ValibotConverter | undefined) {
    this.#named = named;
    this.#valibot = valibot;
    for (const [schema, name] of named) if (schema['~standard'].vendor === 'valibot') this.#valibotDefinitions[name] = schema;
  }

  /**
   * The JSON Schema of a Standard Schema's input or output type, with its named parts in
   * `components.schemas`. `hint` names a component that an unnamed recursive schema needs.
   * Throws what the library threw when it cannot convert the schema.
   */
  convert(schema: StandardSchemaV1, io: Io, hint: string): JsonSchema {
    hint = hint.replace(/[^A-Za-z0-9._-]/g, '_');
    const name = this.#named.get(schema);
    if (name === undefined) return this.#lift(this.#raw(schema, io), io, hint);
    const key = `${io} ${name}`;
    const done = this.#namedDone.get(key);
    if (done) return done;
    const lifted = this.#lift(this.#raw(schema, io), io, name);
    // Already a reference to a component of that name (Zod's .meta({ id }), Valibot's definitions).
    const ref = typeof lifted.$ref === 'string' && Object.keys(lifted).length === 1 ? lifted : { $ref: COMPONENT + this.components.add(name, lifted, io) };
    this.#namedDone.set(key, ref);
    return ref;
  }

  /** The library's own conversion. */
  #raw(schema: StandardSchemaV1, io: Io): JsonSchema {
    const standard = schema['~standard'] as StandardSchemaV1['~standard'] & { jsonSchema?: Partial<Record<Io, (options: { target: string }) => JsonSchema>> };
    const convert = standard.jsonSchema?.[io];
    if (typeof convert === 'function') return convert({ target: 'draft-2020-12' });
    if (standard.vendor === 'valibot') {
      if (!this.#valibot) throw new Error('Valibot schemas are converted by @valibot/to-json-schema, which is not installed: pnpm add @valibot/to-json-schema');
      return this.#valibot(schema, io, this.#valibotDefinitions);
    }
    const own = (schema as { toJsonSchema?: () => JsonSchema }).toJsonSchema;
    if (typeof own === 'function') return own.call(schema); // ArkType before it implemented Standard JSON Schema
    if (standard.vendor === 'zod') throw new Error('this Zod schema has no JSON Schema converter: Zod 4.2 and later implement Standard JSON Schema (~standard.jsonSchema)');
    throw new Error(`${standard.vendor} schemas implement no JSON Schema converter (Standard JSON Schema's ~standard.jsonSchema)`);
  }

  /** Lifts `$defs` into components, rewrites references and older keywords. */
  #lift(raw: JsonSchema, io: Io, hint: string): JsonSchema {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`the converter returned ${raw === null ? 'null' : typeof raw}, not a schema object`);
    const { $schema: _dialect, $defs, definitions, ...root } = raw as JsonSchema & { $defs?: Record<string, JsonSchema>; definitions?: Record<string, JsonSchema> };
    const defs: Record<string, JsonSchema> = { ...(definitions ?? {}), ...($defs ?? {}) };
    const names = new Map<string, string>();
    let n = 0;
    for (const name of Object.keys(defs)) {
      // Zod names unnamed shared or recursive parts __schema0…: make them this route's own.
      names.set(name, /^__schema\d+$/.test(name) ? `${hint}_${++n}` : NAME.test(name) ? name : name.replace(/[^A-Za-z0-9._-]/g, '_'));
    }
    // A reference to the root itself ('#': an unnamed recursive schema) makes the root a component named after the hint.
    let recursive = false;
    const rewrite = (final: Map<string, string>) => (ref: string): string => {
      if (ref === '#') {
        recursive = true;
        return COMPONENT + hint;
      }
      const m = /^#\/(?:\$defs|definitions)\/([^/]+)(.*)$/.exec(ref);
      if (!m) return ref;
      const name = decodePointer(m[1]!);
      const target = final.get(name);
      return target === undefined ? ref : COMPONENT + encodeURIComponent(target) + m[2]!;
    };
    // Names first, compared against what components hold, then the schemas with the final names.
    const byBase = rewrite(names);
    const final = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) final.set(name, this.components.peek(names.get(name)!, normalize(def, byBase), io));
    const to = rewrite(final);
    for (const [name, def] of Object.entries(defs)) this.components.add(final.get(name)!, normalize(def, to), io);
    const out = normalize(root, to);
    if (!recursive) return out;
    const name = this.components.peek(hint, out, io);
    // Another schema has that name: the root's own references follow it to the name it gets.
    const self = COMPONENT + hint;
    const stored = name === hint ? out : normalize(out, (r) => (r === self ? COMPONENT + name : r));
    return { $ref: COMPONENT + this.components.add(name, stored, io) };
  }
}

function decodePointer(token: string): string {
  return decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A copy of a schema with `$ref`s rewritten and older drafts' keywords in 2020-12's terms. */
function normalize(schema: unknown, ref: (ref: string) => string): JsonSchema {
  return walk(schema, ref) as JsonSchema;
}

function walk(node: unknown, ref: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => walk(item, ref));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = ref(value);
    else if (DATA.has(key)) out[key] = value;
    else out[key] = walk(value, ref);
  }
  // Draft 2019 and before: tuples as an items array.
  if (Array.isArray(out.items)) {
    out.prefixItems = out.items;
    if (out.additionalItems === undefined) delete out.items;
    else out.items = out.additionalItems;
    delete out.additionalItems;
  }
  // OpenAPI 3.0's nullable: a null type in 3.1.
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type)) {
      if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    } else return { anyOf: [out, { type: 'null' }] };
  } else if (out.nullable === false) delete out.nullable;
  // Draft 4's boolean exclusive bounds.
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[flag] === 'boolean') {
      if (out[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
  }
  return out;
}

/** A `$ref` to a component, resolved against the components (one level), or the schema itself. */
export function resolve(schema: JsonSchema, components: Components): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENT)) return components.schemas[decodeURIComponent(ref.slice(COMPONENT.length))] ?? schema;
  return schema;
}
