import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  takesEvent,
  updateWebhookEndpoint,
  type NewWebhookEndpoint,
} from '../../lambdas/domain/webhooks/webhook-endpoint-repository';
import type { WebhookEventType } from '../../lambdas/domain/webhooks/event-types';
import { WEBHOOK_ENDPOINTS_PER_WORKSPACE } from '../../lambdas/domain/webhooks/webhook-endpoint';
import type { AppError } from '../../lambdas/shared/errors';
import { keys } from '../../lambdas/shared/table';
import { createTestTable } from '../support/dynamodb';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());

let n = 0;
/** A workspace of the test's own, so tests never see each other's endpoints. */
const workspace = () => `ws-webhooks-${++n}`;
const NOW = new Date('2026-11-20T08:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const create = (workspaceId: string, overrides: Partial<NewWebhookEndpoint> = {}, now = NOW) =>
  createWebhookEndpoint({ workspaceId, url: 'https://hooks.example.com/messaging', events: null, description: null, ...overrides }, now, table);
/** The workspace's endpoints the publisher posts a `type` event to (lambdas/domain/webhooks/publish-events.ts). */
const takingEvents = async (workspaceId: string, type: WebhookEventType) => (await listWebhookEndpoints(workspaceId, table)).filter((endpoint) => takesEvent(endpoint, type));
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);

describe('webhook endpoints against DynamoDB Local', () => {
  it('stores a new endpoint, enabled, with a Standard Webhooks secret the standardwebhooks package signs with', async () => {
    const ws = workspace();

    const endpoint = await create(ws, { events: ['message.received'], description: 'CRM' });

    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-f]{32}$/),
      workspaceId: ws,
      url: 'https://hooks.example.com/messaging',
      events: ['message.received'],
      description: 'CRM',
      status: 'enabled',
      disabledReason: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      enabledAt: NOW.toISOString(),
      secrets: [{ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), expiresAt: null }],
    });
    // The package signs with the 32 bytes the base64 stands for, and a receiver verifies with the string as given.
    const key = Buffer.from(endpoint.secrets[0].secret.slice('whsec_'.length), 'base64');
    expect(key).toHaveLength(32);
    const sentAt = new Date();
    const timestamp = String(Math.floor(sentAt.getTime() / 1000));
    const body = JSON.stringify({ id: 'evt_1', type: 'message.received', timestamp: sentAt.toISOString(), data: {} });
    const signature = new Webhook(endpoint.secrets[0].secret).sign('evt_1', sentAt, body);
    expect(signature).toBe(`v1,${createHmac('sha256', key).update(`evt_1.${timestamp}.${body}`).digest('base64')}`);
    expect(new Webhook(endpoint.secrets[0].secret).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': timestamp, 'webhook-signature': signature })).toEqual(JSON.parse(body));

    const items = (await table.scanAll()).filter((item) => typeof item.pk === 'string' && item.pk === `WS#${ws}#WHE`);
    expect(items).toEqual(
      expect.arrayContaining([
        { ...keys.webhookEndpoint(ws, endpoint.id), entity: 'webhookEndpoint', ...endpoint },
        { ...keys.webhookEndpointCount(ws), entity: 'webhookEndpointCount', count: 1 },
      ]),
    );
    expect(items).toHaveLength(2);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toEqual(endpoint);
  });

  it('lists a workspace’s endpoints oldest first, and never another workspace’s', async () => {
    const [ws, other] = [workspace(), workspace()];
    const first = await create(ws, {}, NOW);
    const second = await create(ws, { url: 'https://second.example.com/' }, later(1));
    const foreign = await create(other);

    expect((await listWebhookEndpoints(ws, table)).map((e) => e.id)).toEqual([first.id, second.id]);
    expect(await getWebhookEndpoint(ws, foreign.id, table)).toBeUndefined();
    expect(await getWebhookEndpoint(other, first.id, table)).toBeUndefined();
    expect(await listWebhookEndpoints(workspace(), table)).toEqual([]);
  });

  it(`refuses the ${WEBHOOK_ENDPOINTS_PER_WORKSPACE + 1}th endpoint with 409 webhook_endpoint_limit_reached, and takes one again after a delete`, async () => {
    const ws = workspace();
    const made = await Promise.all(Array.from({ length: WEBHOOK_ENDPOINTS_PER_WORKSPACE }, () => create(ws)));

    const refused = await rejection(create(ws));
    expect([refused?.status, refused?.code, refused?.message]).toEqual([409, 'webhook_endpoint_limit_reached', 'A workspace may have at most 10 webhook endpoints; delete one first']);
    expect(await listWebhookEndpoints(ws, table)).toHaveLength(WEBHOOK_ENDPOINTS_PER_WORKSPACE);
    expect(await create(workspace())).toMatchObject({ status: 'enabled' });

    expect(await deleteWebhookEndpoint(ws, made[0]!.id, table)).toBe(true);
    await expect(create(ws)).resolves.toMatchObject({ status: 'enabled' });
    await expect(rejection(create(ws))).resolves.toMatchObject({ code: 'webhook_endpoint_limit_reached' });
  });

  it('lets no two concurrent creates pass the cap together', async () => {
    const ws = workspace();
    const outcomes = await Promise.allSettled(Array.from({ length: WEBHOOK_ENDPOINTS_PER_WORKSPACE + 5 }, () => create(ws)));

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(WEBHOOK_ENDPOINTS_PER_WORKSPACE);
    expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as AppError).code] : []))).toEqual(Array(5).fill('webhook_endpoint_limit_reached'));
    expect(await listWebhookEndpoints(ws, table)).toHaveLength(WEBHOOK_ENDPOINTS_PER_WORKSPACE);
  });

  it('deletes only the workspace’s own endpoint, once', async () => {
    const [ws, other] = [workspace(), workspace()];
    const endpoint = await create(ws);

    expect(await deleteWebhookEndpoint(other, endpoint.id, table)).toBe(false);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toEqual(endpoint);
    expect(await deleteWebhookEndpoint(ws, endpoint.id, table)).toBe(true);
    expect(await deleteWebhookEndpoint(ws, endpoint.id, table)).toBe(false);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toBeUndefined();
    const count = (await table.scanAll()).find((item) => item.pk === `WS#${ws}#WHE` && item.sk === 'COUNT');
    expect(count).toMatchObject({ count: 0 });
  });

  it('changes only what a patch names, and nothing of another workspace’s endpoint', async () => {
    const [ws, other] = [workspace(), workspace()];
    const endpoint = await create(ws, { events: ['message.received'], description: 'CRM' });

    const changed = await updateWebhookEndpoint(ws, endpoint.id, { url: 'https://new.example.com/hooks', events: null }, later(60), table);
    expect(changed).toEqual({ ...endpoint, url: 'https://new.example.com/hooks', events: null, updatedAt: later(60).toISOString() });
    const described = await updateWebhookEndpoint(ws, endpoint.id, { description: null }, later(61), table);
    expect(described).toEqual({ ...changed, description: null, updatedAt: later(61).toISOString() });

    expect(await updateWebhookEndpoint(other, endpoint.id, { url: 'https://evil.example.com/' }, later(62), table)).toBeUndefined();
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toEqual(described);
    expect(await listWebhookEndpoints(other, table)).toEqual([]);
  });

  it('disables an endpoint with its reason, keeps the first reason, and re-enables it on a patch', async () => {
    const ws = workspace();
    const endpoint = await create(ws);

    await disableWebhookEndpoint(ws, endpoint.id, 'gone', later(10), table);
    await disableWebhookEndpoint(ws, endpoint.id, 'failing', later(20), table);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toEqual({ ...endpoint, status: 'disabled', disabledReason: 'gone', updatedAt: later(10).toISOString(), disabledAt: later(10).toISOString() });
    expect(await takingEvents(ws, 'message.received')).toEqual([]);

    const enabled = await updateWebhookEndpoint(ws, endpoint.id, { status: 'enabled' }, later(30), table);
    // Its failures count towards `failing` afresh from the re-enable.
    expect(enabled).toEqual({ ...endpoint, status: 'enabled', disabledReason: null, updatedAt: later(30).toISOString(), enabledAt: later(30).toISOString(), disabledAt: later(10).toISOString() });
  });

  it('disabling a deleted or foreign endpoint changes nothing and creates nothing', async () => {
    const [ws, other] = [workspace(), workspace()];
    const endpoint = await create(ws);
    await disableWebhookEndpoint(other, endpoint.id, 'gone', later(10), table);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toEqual(endpoint);

    await deleteWebhookEndpoint(ws, endpoint.id, table);
    await disableWebhookEndpoint(ws, endpoint.id, 'gone', later(20), table);
    expect(await getWebhookEndpoint(ws, endpoint.id, table)).toBeUndefined();
    expect((await table.scanAll()).filter((item) => item.pk === `WS#${other}#WHE`)).toEqual([]);
  });

  it('the publisher posts a type to the enabled endpoints subscribed to it (takesEvent); a null events list takes every type', async () => {
    const ws = workspace();
    const everything = await create(ws, {}, NOW);
    const statuses = await create(ws, { events: ['message.status.updated', 'template.status.updated'] }, later(1));
    const inbound = await create(ws, { events: ['message.received'] }, later(2));
    const disabled = await create(ws, {}, later(3));
    await disableWebhookEndpoint(ws, disabled.id, 'failing', later(4), table);
    await create(workspace());

    const ids = async (type: WebhookEventType) => (await takingEvents(ws, type)).map((e) => e.id);
    expect(await ids('message.status.updated')).toEqual([everything.id, statuses.id]);
    expect(await ids('message.received')).toEqual([everything.id, inbound.id]);
    expect(await ids('template.status.updated')).toEqual([everything.id, statuses.id]);
  });

  it('rotates the secret: the new one first, the old one kept until the overlap ends', async () => {
    const ws = workspace();
    const endpoint = await create(ws);
    const original = endpoint.secrets[0].secret;

    const first = await rotateWebhookSecret(ws, endpoint.id, 86_400, later(100), table);
    expect(first).toEqual({ secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: later(100 + 86_400).toISOString() });
    expect(first!.secret).not.toBe(original);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!).toMatchObject({
      secrets: [
        { secret: first!.secret, expiresAt: null },
        { secret: original, expiresAt: later(86_500).toISOString() },
      ],
      updatedAt: later(100).toISOString(),
    });

    // Two days later the first overlap is over: only the latest two secrets remain.
    const second = await rotateWebhookSecret(ws, endpoint.id, 3_600, later(2 * 86_400), table);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets).toEqual([
      { secret: second!.secret, expiresAt: null },
      { secret: first!.secret, expiresAt: later(2 * 86_400 + 3_600).toISOString() },
    ]);
  });

  // docs/security.md: a leaked secret is replaced with a rotation with overlapSeconds 0. A secret leaked from an earlier
  // rotation, still in its overlap, kept signing until its own end.
  it('ends every earlier secret’s overlap by the rotation’s: a zero overlap leaves the new secret alone', async () => {
    const ws = workspace();
    const endpoint = await create(ws);
    const first = await rotateWebhookSecret(ws, endpoint.id, 86_400, later(1), table);
    const second = await rotateWebhookSecret(ws, endpoint.id, 3_600, later(2), table);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets).toEqual([
      { secret: second!.secret, expiresAt: null },
      { secret: first!.secret, expiresAt: later(3_602).toISOString() },
      { secret: endpoint.secrets[0].secret, expiresAt: later(3_602).toISOString() },
    ]);

    const third = await rotateWebhookSecret(ws, endpoint.id, 0, later(3), table);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets).toEqual([{ secret: third!.secret, expiresAt: null }]);
  });

  it('retires the old secret at once with a zero overlap, keeps at most three, and ignores foreign ids', async () => {
    const [ws, other] = [workspace(), workspace()];
    const endpoint = await create(ws);

    const immediate = await rotateWebhookSecret(ws, endpoint.id, 0, later(1), table);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets).toEqual([{ secret: immediate!.secret, expiresAt: null }]);

    const rotations = [];
    for (let i = 2; i <= 5; i++) rotations.push(await rotateWebhookSecret(ws, endpoint.id, 3_600, later(i), table));
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets.map((s) => s.secret)).toEqual([rotations[3]!.secret, rotations[2]!.secret, rotations[1]!.secret]);

    expect(await rotateWebhookSecret(other, endpoint.id, 3_600, later(10), table)).toBeUndefined();
    expect(await rotateWebhookSecret(ws, 'whe_00000000000000000000000000000000', 3_600, later(10), table)).toBeUndefined();
  });

  it('takes a rotation the SDK sent again after losing its answer as the one rotation it is: no third secret nobody was shown', async () => {
    const ws = workspace();
    const endpoint = await create(ws);
    const original = endpoint.secrets[0].secret;
    let lost = false;
    // The first UpdateItem commits, its answer is lost, and the SDK sends the same request again.
    const lossy = {
      ...table,
      db: {
        send: async (command: unknown) => {
          const answer = await table.db.send(command as never);
          if (command instanceof UpdateCommand && !lost) {
            lost = true;
            return table.db.send(command as never);
          }
          return answer;
        },
      },
    } as unknown as typeof table;

    const rotated = await rotateWebhookSecret(ws, endpoint.id, 3_600, later(1), lossy);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets.map((s) => s.secret)).toEqual([rotated!.secret, original]);
  });

  it('concurrent rotations each keep their secret: every one answered is current or in its overlap', async () => {
    const ws = workspace();
    const endpoint = await create(ws);

    const answers = await Promise.all([1, 2].map(() => rotateWebhookSecret(ws, endpoint.id, 3_600, later(5), table)));

    const stored = (await getWebhookEndpoint(ws, endpoint.id, table))!.secrets.map((s) => s.secret);
    expect(stored).toHaveLength(3);
    expect(stored).toEqual(expect.arrayContaining([answers[0]!.secret, answers[1]!.secret, endpoint.secrets[0].secret]));
  });

  it('eight rotations at once are each answered, a secret or a retryable 503, never an unexpected error', async () => {
    const ws = workspace();
    const endpoint = await create(ws);

    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        rotateWebhookSecret(ws, endpoint.id, 3_600, later(5), table).then(
          (answer) => (answer ? 'rotated' : 'missing'),
          (error: unknown) => ((error as AppError).code ? `${(error as AppError).status} ${(error as AppError).code}` : `500 (${(error as Error).name})`),
        ),
      ),
    );

    expect(outcomes.filter((outcome) => outcome !== 'rotated' && outcome !== '503 service_unavailable')).toEqual([]);
    expect((await getWebhookEndpoint(ws, endpoint.id, table))!.secrets).toHaveLength(3);
  });
});
