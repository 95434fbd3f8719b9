import { Readable } from 'node:stream';

/**
 * A streaming route's JSON body (decision 24), written a chunk of rows at a time so it is never one
 * string: `head`'s members, `"items": [rows…]`, then `tail`'s members. Rows come in chunks as they
 * are read, or from an array through `slices`.
 */
export function streamedItems(head: object, rows: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>, tail: object = {}): Readable {
  return Readable.from(jsonChunks(head, rows, tail));
}

/** An array in slices of `size` rows, for `streamedItems`. */
export function* slices<T>(rows: readonly T[], size: number): Iterable<T[]> {
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}

async function* jsonChunks(head: object, rows: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>, tail: object): AsyncIterable<string> {
  const before = members(head);
  yield `{${before}${before ? ',' : ''}"items":[`;
  let first = true;
  for await (const chunk of rows) {
    if (!chunk.length) continue;
    yield `${first ? '' : ','}${chunk.map((row) => JSON.stringify(row)).join(',')}`;
    first = false;
  }
  const after = members(tail);
  yield `]${after ? ',' : ''}${after}}`;
}

/** An object's members as JSON, without its braces. */
const members = (object: object) => JSON.stringify(object).slice(1, -1);
