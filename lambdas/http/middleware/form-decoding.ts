import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import qs from 'qs';
import { ValidationError } from '../../shared/errors';

/** The form decoders behind formBodyParser (./form-body-parser.ts), loaded only when a form arrives. */

/**
 * Bracket-notation limits (docs/api.md#form-encodings): deep enough for `content[variables][name]`, and bounded
 * so a hostile form cannot blow up the parse. Arrays may exceed the contract's limits here so that
 * the route's schema, not the parser, rejects them with a message naming the field.
 */
const QS_OPTIONS: qs.IParseOptions = {
  depth: 4,
  strictDepth: true,
  arrayLimit: 1000,
  parameterLimit: 2000,
  throwOnLimitExceeded: true,
  // Objects without a prototype, so a field named `toString` or `constructor` is a field like any
  // other, refused by the schema as a JSON body's is; qs drops those names from ordinary objects.
  plainObjects: true,
  // `[1]` keeps its place, so recordsOfSparseArrays can tell a name from an index (below).
  allowSparse: true,
  decoder: decodeStrictly,
};

/**
 * qs reads `[n]` as an array index, so `content[variables][1]=Budi&content[variables][2]=A-1` (a
 * positional template's variables) would come out as an array and lose its names. An array is
 * written from index 0 without gaps (`trackingTags[0]=a`, `trackingTags[]=a`); numbers that leave a
 * gap are names, as they are in JSON: such an array becomes the object of its entries.
 */
function recordsOfSparseArrays(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(recordsOfSparseArrays);
    if (Object.keys(value).length === value.length) return items;
    const record: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const index of Object.keys(value)) record[index] = items[Number(index)];
    return record;
  }
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = recordsOfSparseArrays(object[key]);
  }
  return value;
}

/** `__proto__` as a name, or one part of a bracketed name: qs would drop it silently. */
const PROTO_PART = /(?:^|\[)__proto__(?:\]|\[|$)/;

/**
 * A form's `+` and percent escapes decoded as UTF-8, refusing an escape that is not UTF-8 (`%FF`):
 * qs keeps such text as it came, so `%FF` would be sent to a customer as the three characters.
 */
function decodeStrictly(text: string, _default: qs.defaultDecoder, _charset: string, kind: 'key' | 'value'): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new Error(`a field ${kind === 'key' ? 'name' : 'value'} holds a percent escape that is not UTF-8 (such as %FF)`);
  }
}

const MULTIPART_LIMITS = { fields: 2000, fieldSize: 64 * 1024, files: 0, parts: 2000 };

/** A url-encoded form as the nested values a JSON body would hold; a form past the limits is a 422. */
export function expand(encoded: string): Record<string, unknown> {
  for (const name of new URLSearchParams(encoded).keys()) {
    if (PROTO_PART.test(name)) throw new ValidationError('The form body could not be read: "__proto__" is not a field name');
  }
  try {
    return recordsOfSparseArrays(qs.parse(encoded, QS_OPTIONS)) as Record<string, unknown>;
  } catch (error) {
    throw new ValidationError(`The form body could not be read: ${(error as Error).message}`);
  }
}

const REPLACEMENT = /\uFFFD/g;
const REPLACEMENT_BYTES = Buffer.from('\uFFFD');

/** How many times `bytes` occurs in `raw`. */
function occurrences(raw: Buffer, bytes: Buffer): number {
  let count = 0;
  for (let at = raw.indexOf(bytes); at !== -1; at = raw.indexOf(bytes, at + bytes.length)) count += 1;
  return count;
}

/**
 * A multipart body's fields, in order; a file part, or a body past the limits, is a 422. Busboy
 * decodes a field's bytes leniently, each byte that is not UTF-8 becoming U+FFFD, which would reach
 * the customer as `�`: a field holding more U+FFFD than the body's bytes spell is refused, as the
 * url-encoded form refuses `%FF` (decodeStrictly).
 */
export function multipartFields(raw: Buffer, contentType: string): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    const fields: [string, string][] = [];
    const fail = (message: string) => reject(new ValidationError(`The multipart body could not be read: ${message}`));
    const spelled = occurrences(raw, REPLACEMENT_BYTES);
    let decoded = 0;
    let parser: BusboyInstance;
    try {
      parser = Busboy({ headers: { 'content-type': contentType }, limits: MULTIPART_LIMITS });
    } catch (error) {
      fail((error as Error).message);
      return;
    }
    parser.on('field', (name: string, value: string, nameTruncated: boolean, valueTruncated: boolean) => {
      decoded += value.match(REPLACEMENT)?.length ?? 0;
      if (nameTruncated || valueTruncated) fail(`field "${name}" is too long`);
      else if (decoded > spelled) fail(`field "${name}" holds bytes that are not UTF-8`);
      else fields.push([name, value]);
    });
    parser.on('file', (name: string, stream: BusboyFileStream) => {
      stream.resume();
      fail(`file uploads are not accepted (field "${name}")`);
    });
    parser.on('fieldsLimit', () => fail('too many fields'));
    parser.on('partsLimit', () => fail('too many parts'));
    parser.on('filesLimit', () => fail('file uploads are not accepted'));
    parser.on('error', (error: unknown) => fail(error instanceof Error ? error.message : String(error)));
    parser.on('finish', () => resolve(fields));
    parser.end(raw);
  });
}
