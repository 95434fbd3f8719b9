import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { actionTarget, itemWriteUnits, transactionWriteUnits, type TransactAction as Action } from '../../bench/write-units';
import { createTestTable } from '../support/dynamodb';

/**
 * The benchmarks price a TransactWriteItems by DynamoDB's rules (bench/write-units.ts), because
 * DynamoDB Local reports a transaction's capacity wrongly. The rules are checked here against what
 * DynamoDB Local does report correctly, the same change made one item at a time: each case writes
 * its items alone, then in one transaction on fresh keys, and the transaction's price must be twice
 * what DynamoDB Local reported for the single writes.
 */
let table: Awaited<ReturnType<typeof createTestTable>>;
let round = 0;

beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());

const get = async (pk: string): Promise<Record<string, unknown> | undefined> =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: { pk, sk: 'S' }, ConsistentRead: true }))).Item;

/** A case: items to seed, then the change, each keyed by a name made unique per round. */
interface Case {
  seed: Record<string, Record<string, unknown>>;
  change: (key: (name: string) => string, TableName: string) => Action[];
}

const cases: Record<string, Case> = {
  'a put of a new item entering one index': {
    seed: {},
    change: (key, TableName) => [{ Put: { TableName, Item: { pk: key('a'), sk: 'S', gsi1pk: 'P', gsi1sk: key('a'), v: 'x' } } }],
  },
  'an update of an attribute an ALL index projects': {
    seed: { a: { gsi1pk: 'P', gsi2pk: 'Q', v: 'x' } },
    change: (key, TableName) => [{ Update: { TableName, Key: { pk: key('a'), sk: 'S' }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 'y' } } }],
  },
  'an index key moved (a delete and a put in that index) and another index left': {
    seed: { a: { gsi1pk: 'P', gsi2pk: 'Q', v: 'x' } },
    change: (key, TableName) => [{ Update: { TableName, Key: { pk: key('a'), sk: 'S' }, UpdateExpression: 'SET gsi2sk = :moved REMOVE gsi1pk', ExpressionAttributeValues: { ':moved': 'later' } } }],
  },
  'an update of attributes an INCLUDE index does not project, and of one it does': {
    seed: { a: { gsi4pk: 'R', createdAt: 't', status: 'queued' }, b: { gsi4pk: 'R', createdAt: 't' } },
    change: (key, TableName) => [
      { Update: { TableName, Key: { pk: key('a'), sk: 'S' }, UpdateExpression: 'SET #status = :s, readAt = :t', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':s': 'processing', ':t': 'u' } } },
      { Update: { TableName, Key: { pk: key('b'), sk: 'S' }, UpdateExpression: 'SET deliveredAt = :t', ExpressionAttributeValues: { ':t': 'u' } } },
    ],
  },
  'an item over 1 KB, and its index copy': {
    seed: { a: { gsi1pk: 'P', v: 'x'.repeat(1500) } },
    change: (key, TableName) => [{ Update: { TableName, Key: { pk: key('a'), sk: 'S' }, UpdateExpression: 'SET w = :w', ExpressionAttributeValues: { ':w': 1 } } }],
  },
  'a delete of an indexed item, and a counter created by ADD': {
    seed: { a: { gsi2pk: 'Q', v: 'x' } },
    change: (key, TableName) => [
      { Delete: { TableName, Key: { pk: key('a'), sk: 'S' } } },
      { Update: { TableName, Key: { pk: key('n'), sk: 'S' }, UpdateExpression: 'ADD c :one', ExpressionAttributeValues: { ':one': 1 } } },
    ],
  },
  'eight small puts of the same size (DynamoDB Local reports them as one)': {
    seed: {},
    change: (key, TableName) => [...'abcdefgh'].map((name) => ({ Put: { TableName, Item: { pk: key(name), sk: 'S', v: 'x' } } })),
  },
};

/** Writes the case's seed under fresh keys, and returns its change on those keys. */
async function prepare(testCase: Case) {
  const prefix = `R${++round}#`;
  const key = (name: string) => `${prefix}${name}`;
  for (const [name, attributes] of Object.entries(testCase.seed)) {
    const item = { pk: key(name), sk: 'S', ...attributes, ...(attributes.gsi1pk ? { gsi1sk: key(name) } : {}), ...(attributes.gsi2pk ? { gsi2sk: key(name) } : {}), ...(attributes.gsi4pk ? { gsi4sk: key(name) } : {}) };
    await table.db.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table.tableName, Item: item } }] }));
  }
  return testCase.change(key, table.tableName);
}

const keyOf = (action: Action) => actionTarget(action).key.pk;

describe.each(Object.entries(cases))('%s', (_, testCase) => {
  it('is priced as twice the units DynamoDB Local reports for the same writes made one at a time', async () => {
    // One at a time: DynamoDB Local's report for each single write, and the rules' price of it.
    const single = await prepare(testCase);
    let reported = 0;
    for (const action of single) {
      const before = await get(keyOf(action));
      const { ConsumedCapacity } = await table.db.send(new TransactWriteCommand({ TransactItems: [action], ReturnConsumedCapacity: 'TOTAL' }));
      const units = ConsumedCapacity!.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
      reported += units;
      const priced = itemWriteUnits(before, await get(keyOf(action)));
      expect(units).toBe(2 * (priced.table + priced.index));
    }

    const together = await prepare(testCase);
    const before = await Promise.all(together.map((action) => get(keyOf(action))));
    await table.db.send(new TransactWriteCommand({ TransactItems: together }));
    const after = await Promise.all(together.map((action) => get(keyOf(action))));
    const priced = transactionWriteUnits(together, before, after);
    expect(priced.table + priced.index).toBe(reported);
  });
});
