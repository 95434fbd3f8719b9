import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { isDeepStrictEqual } from 'node:util';
import { projectedAttributes, tableDefinition, type IndexDefinition, type ItemKey } from '../lambdas/shared/table';

/**
 * The write units a `TransactWriteItems` consumes, by DynamoDB's documented rules, from the items
 * before and after it. DynamoDB Local 3 reports a transaction's capacity wrongly: items whose units
 * come out equal are counted once (eight small puts report 2 units, not 16; awslabs/amazon-dynamodb-local-samples#31),
 * so the benchmarks price transactions here and keep what DynamoDB Local said beside it. Single-item
 * writes are reported correctly, and `itemWriteUnits` gives the same figures for them
 * (test/integration/write-units.test.ts).
 *
 * The rules (docs: "Item sizes and formats", "Global secondary indexes: provisioned throughput
 * considerations", "Capacity management for transactions"):
 * - a write costs one unit per KB, rounded up, of the larger of the item before and after it;
 * - an index is written when the item enters it (a put), leaves it (a delete), changes its keys
 *   in it (a delete and a put) or changes an attribute it projects (one write), each of its entry's size;
 * - a transaction prepares and commits every item: twice the units of each action, a
 *   `ConditionCheck` as a write of the item it reads.
 *
 * Items and actions are as the document client takes them (JavaScript values).
 */

type Item = Record<string, unknown>;
export type TransactAction = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface WriteUnits {
  table: number;
  index: number;
}

const KB = 1024;

/** Item size: each attribute's name and value, as DynamoDB counts them. */
export function itemBytes(item: Item): number {
  return Object.entries(marshall(item, { removeUndefinedValues: true })).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, entry) => sum + Buffer.byteLength(entry), 0);
  if (value.NS) return value.NS.reduce((sum, entry) => sum + numberBytes(entry), 0);
  if (value.BS) return value.BS.reduce((sum, entry) => sum + entry.byteLength, 0);
  // A map or list: 3 bytes, and 1 byte per element besides its own size.
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [name, entry]) => sum + Buffer.byteLength(name) + valueBytes(entry) + 1, 0);
  if (value.L) return 3 + value.L.reduce((sum, entry) => sum + valueBytes(entry) + 1, 0);
  return 0;
}

/** One byte per two significant digits, and one more. */
function numberBytes(number: string): number {
  const significant = number.replace(/^[+-]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, significant.length) / 2) + 1;
}

const units = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

const indexes: IndexDefinition[] = Object.values(tableDefinition.indexes);

/** The index entry an item has (undefined when it lacks the index's keys): what the index projects. */
function indexEntry(item: Item | undefined, index: IndexDefinition): Item | undefined {
  if (item?.[index.partitionKey] === undefined || item[index.sortKey] === undefined) return undefined;
  const projected = projectedAttributes(index);
  if (projected === 'ALL') return item;
  const keep = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey, ...projected]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => keep.has(name)));
}

/** One item's change, outside a transaction: its table write and its index writes. */
export function itemWriteUnits(before: Item | undefined, after: Item | undefined): WriteUnits {
  const table = units(Math.max(before ? itemBytes(before) : 0, after ? itemBytes(after) : 0));
  let index = 0;
  for (const definition of indexes) {
    const [was, is] = [indexEntry(before, definition), indexEntry(after, definition)];
    if (!was && !is) continue;
    if (!was || !is) index += units(itemBytes((was ?? is)!));
    else if (was[definition.partitionKey] !== is[definition.partitionKey] || was[definition.sortKey] !== is[definition.sortKey]) index += units(itemBytes(was)) + units(itemBytes(is));
    else if (!isDeepStrictEqual(was, is)) index += units(Math.max(itemBytes(was), itemBytes(is)));
  }
  return { table, index };
}

/** The table an action writes, and the key of the item it names. */
export function actionTarget(action: TransactAction): { tableName: string; key: ItemKey } {
  if (action.Put) return { tableName: action.Put.TableName!, key: { pk: String(action.Put.Item![tableDefinition.partitionKey]), sk: String(action.Put.Item![tableDefinition.sortKey]) } };
  const { TableName, Key } = (action.Update ?? action.Delete ?? action.ConditionCheck)!;
  return { tableName: TableName!, key: { pk: String(Key![tableDefinition.partitionKey]), sk: String(Key![tableDefinition.sortKey]) } };
}

/** A committed transaction's units, from each action's item before and after it (in the actions' order). */
export function transactionWriteUnits(actions: readonly TransactAction[], before: readonly (Item | undefined)[], after: readonly (Item | undefined)[]): WriteUnits {
  return actions.reduce<WriteUnits>(
    (sum, action, position) => {
      const change = action.ConditionCheck ? { table: units(before[position] ? itemBytes(before[position]) : 0), index: 0 } : itemWriteUnits(before[position], after[position]);
      return { table: sum.table + 2 * change.table, index: sum.index + 2 * change.index };
    },
    { table: 0, index: 0 },
  );
}
