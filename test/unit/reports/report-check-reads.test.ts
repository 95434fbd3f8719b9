import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { checkDayReports, REPORT_CHECK_PARALLEL_TAGS } from '../../../lambdas/domain/reports/report-rebuild';

/**
 * `reports check` and `reports rebuild` read each of the day's tags' rollups and links. A campaign
 * day can carry thousands of tags (every tag on every dispatch of the day): read all at once, the
 * operator's CLI opened a query per tag and shape at the same time, met DynamoDB's throttling and
 * the SDK's socket pool, and failed the whole check. The reads are bounded, as the report routes'.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const store = { db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'ap-southeast-3' })), tableName: 'items' };
const TAGS = 300;

it("reads a day of many tags with a bounded number of queries in flight, and still reads every tag's rollups and links", async () => {
  let inFlight = 0;
  let most = 0;
  const read: string[] = [];
  ddb.on(QueryCommand).callsFake(async (input: QueryCommandInput) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    const partition = String(input.ExpressionAttributeValues?.[':pk'] ?? Object.values(input.ExpressionAttributeValues ?? {})[0]);
    read.push(partition);
    // The day's tag rollups name the tags; every other read finds nothing.
    if (partition === 'WS#ws#RD#2026-11-27') return { Items: Array.from({ length: TAGS }, (_, i) => ({ trackingTag: `tag-${i}`, dispatchCount: 1 })) };
    return { Items: [] };
  });

  const check = await checkDayReports('ws', '2026-11-27', store);

  expect(most).toBeLessThanOrEqual(REPORT_CHECK_PARALLEL_TAGS * 3);
  expect(new Set(read.filter((partition) => partition.startsWith('WS#ws#RT#'))).size).toBe(TAGS);
  expect(check.corrections).toHaveLength(TAGS);
});
