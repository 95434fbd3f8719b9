import { synthStack } from '../support/synth';

/**
 * The table's indexes as the releases docs/deploy.md names as upgrade steps deployed them
 * (synthesized at each commit with cdk.json's context), against this release's. CloudFormation
 * updates a table's indexes through DynamoDB's UpdateTable, which creates or deletes one index per
 * call and changes nothing of an existing one but its throughput: an upgrade that creates or deletes
 * more than one, or changes an index's key schema or projection, is refused ("Cannot update GSI's
 * properties other than Provisioned Throughput and Contributor Insights Specification") and rolled
 * back. A change of an index here is a release of its own, and a paragraph of docs/deploy.md.
 */
type Index = { IndexName: string; KeySchema: unknown; Projection: unknown };
const keysOf = (name: string) => [
  { AttributeName: `${name}pk`, KeyType: 'HASH' },
  { AttributeName: `${name}sk`, KeyType: 'RANGE' },
];
const gsi1 = { IndexName: 'gsi1', KeySchema: keysOf('gsi1'), Projection: { ProjectionType: 'ALL' } };
const gsi2 = { IndexName: 'gsi2', KeySchema: keysOf('gsi2'), Projection: { ProjectionType: 'ALL' } };
const gsi3 = { IndexName: 'gsi3', KeySchema: keysOf('gsi3'), Projection: { ProjectionType: 'KEYS_ONLY' } };
const reportRow = ['dispatchId', 'to', 'templateId', 'templateName', 'source', 'apiClient', 'trackingTags', 'creditCost', 'amountRupiah', 'createdAt', 'sentAt', 'deliveredAt', 'failureCode'];
const gsi4 = { IndexName: 'gsi4', KeySchema: keysOf('gsi4'), Projection: { NonKeyAttributes: reportRow, ProjectionType: 'INCLUDE' } };

const released: Record<string, Index[]> = {
  // Decision 100's release, which added gsi3: "deploy the release on its own".
  '0c0f7ac': [gsi1, gsi2, gsi3],
  // Decision 104's, as released from b723918 on: gsi4's projection with failureCode.
  b723918: [gsi1, gsi2, gsi3, gsi4],
  // The last release docs/deploy.md names (decisions 105 and 109).
  '47123a7': [gsi1, gsi2, gsi3, gsi4],
};
// e880b1b…99aba1a released gsi4 without failureCode: docs/deploy.md gives those stacks two steps.
const gsi4BeforeFailureCode = { ...gsi4, Projection: { NonKeyAttributes: reportRow.filter((name) => name !== 'failureCode'), ProjectionType: 'INCLUDE' } };

const { template } = synthStack();
const [table] = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'));
const current = table!.Properties.GlobalSecondaryIndexes as Index[];

/** What UpdateTable would have to do to the indexes that CloudFormation refuses; none when allowed. */
function refusedChange(before: Index[], after: Index[]): string[] {
  const byName = (indexes: Index[]) => new Map(indexes.map((index) => [index.IndexName, index]));
  const [old, now] = [byName(before), byName(after)];
  const created = [...now.keys()].filter((name) => !old.has(name));
  const deleted = [...old.keys()].filter((name) => !now.has(name));
  const changed = [...now.keys()].filter((name) => old.has(name) && JSON.stringify(old.get(name)) !== JSON.stringify(now.get(name)));
  return [...(created.length + deleted.length > 1 ? [`creates ${created.join(', ') || 'none'} and deletes ${deleted.join(', ') || 'none'} in one update`] : []), ...changed.map((name) => `changes ${name} in place`)];
}

describe('upgrading a deployed stack to this release: the table’s indexes', () => {
  it.each(Object.keys(released))('from %s, CloudFormation can make the index change in one update', (commit) => {
    expect(refusedChange(released[commit]!, current)).toEqual([]);
  });

  it('from e880b1b…99aba1a it cannot (gsi4 changed in place), as docs/deploy.md says: those stacks take two steps', () => {
    expect(refusedChange([gsi1, gsi2, gsi3, gsi4BeforeFailureCode], current)).toEqual(['changes gsi4 in place']);
    // The first step deletes gsi4, the second makes it again: one index change each.
    expect(refusedChange([gsi1, gsi2, gsi3, gsi4BeforeFailureCode], [gsi1, gsi2, gsi3])).toEqual([]);
    expect(refusedChange([gsi1, gsi2, gsi3], current)).toEqual([]);
  });
});
