import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { clearApiKeyCache } from '../../../lambdas/domain/api-keys/authenticate';
import { hashApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { handler } from '../../../lambdas/handlers/get-template';
import { apiKeyItem } from '../../support/api-keys';
import { lambdaContext, routeEvent } from '../../support/events';
import { captureLogLines } from '../../support/log-lines';

/**
 * The logger is one per container, and the HTTP stack resets its keys as each request ends. A key
 * lookup that outlasts its request (answered 503 at the function's deadline) still runs on; when it
 * resolved, the auth middleware stamped its workspace on the logger, after the reset: on the
 * container's next request, whose lines then named another workspace.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const KEY_A = 'msk_test_AAAAbbbbCCCCdddd0001';
const KEY_B = 'msk_test_BBBBccccDDDDeeee0002';
const TEMPLATE = '7b0c5c3e-0000-4000-8000-000000000001';
const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** The `Request rejected` lines logged from now on; `restore` after each test. */
let log: ReturnType<typeof captureLogLines> | undefined;
const capturedLines = () => {
  const capture = (log = captureLogLines());
  return { rejected: () => capture.lines.filter((line) => line.message === 'Request rejected'), clear: () => void capture.lines.splice(0) };
};

beforeEach(() => {
  clearApiKeyCache();
  ddb.reset();
  ddb.on(QueryCommand).resolves({ Items: [] });
});
afterEach(() => log?.restore());

/** A's request, whose key the table answers only after its 300 ms of function time. */
async function timedOutRequestOfA() {
  const first = (await handler(routeEvent('getTemplate', { apiKey: KEY_A, pathParameters: { templateId: TEMPLATE } }), lambdaContext('getTemplate', 300))) as { statusCode: number };
  expect(first.statusCode).toBe(503);
}

it('logs the next request without the workspace of a key lookup that outlasted its own request', async () => {
  ddb.on(GetCommand).callsFake(() => later(800, { Item: apiKeyItem(KEY_A, { workspaceId: 'ws-a', scopes: ['templates:read'] }) }));
  const log = capturedLines();
  await timedOutRequestOfA();
  await later(1000, undefined); // A's lookup resolves before the container's next request
  log.clear();

  const second = (await handler(routeEvent('getTemplate', { pathParameters: { templateId: TEMPLATE } }), lambdaContext('getTemplate', 3000))) as { statusCode: number };

  expect(second.statusCode).toBe(401);
  expect(log.rejected().map((line) => [line.workspaceId, line.apiKeyId])).toEqual([[undefined, undefined]]);
});

it('logs a request of workspace B as B’s while a lookup of workspace A that outlasted its request resolves', async () => {
  ddb.on(GetCommand).callsFake(({ Key }: { Key: { pk: string } }) => {
    if (Key.pk === `KEY#${hashApiKey(KEY_A)}`) return later(800, { Item: apiKeyItem(KEY_A, { workspaceId: 'ws-a', scopes: ['templates:read'] }) });
    if (Key.pk.startsWith('KEY#')) return Promise.resolve({ Item: apiKeyItem(KEY_B, { workspaceId: 'ws-b', scopes: ['templates:read'] }) });
    return later(1000, {}); // B's template, read while A's lookup resolves: none
  });
  const log = capturedLines();
  await timedOutRequestOfA();
  log.clear();

  const second = (await handler(routeEvent('getTemplate', { apiKey: KEY_B, pathParameters: { templateId: TEMPLATE } }), lambdaContext('getTemplate', 3000))) as { statusCode: number };

  expect(second.statusCode).toBe(404);
  expect(log.rejected().map((line) => line.workspaceId)).toEqual(['ws-b']);
});
