import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { BuildMiddleware } from '@smithy/types';
import { deliverDispatch, deliverQueuedDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { getDispatchById } from '../../lambdas/domain/messages/dispatch-repository';
import type { WebhookEnvelope } from '../../lambdas/domain/providers/whatsapp-webhook';
import type { Store } from '../../lambdas/shared/store';
import { sendTemplateMessage, type SendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { TemplateCategory } from '../../lambdas/domain/workspaces/workspace';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { getMarketingOptOut, listMarketingOptOuts } from '../../lambdas/domain/workspaces/marketing-opt-out';
import { optOutFromReply, recordMarketingOptOut, removeMarketingOptOut } from '../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { AppError } from '../../lambdas/shared/errors';
import { keys } from '../../lambdas/shared/table';
import { signWebhookBody } from '../../lambdas/domain/providers/whatsapp-webhook';
import { expireTtlItems } from '../support/dynamodb';
import { invokeRoute, routeEvent, type RouteHandler } from '../support/events';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { whatsAppEnvelope } from '../support/webhooks';
import { runStreamConsumer } from '../support/stream-consumer';

const env = useTableAndQueues();

const MARKETING = '7b0c5c3e-0000-4000-8000-00000000a001';
const UTILITY = '7b0c5c3e-0000-4000-8000-00000000a002';
const UNCATEGORISED = '7b0c5c3e-0000-4000-8000-00000000a003';

/** A workspace of the test's own, with the fixture template as MARKETING, UTILITY and without a category. */
async function workspace(): Promise<string> {
  const id = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id, name: id, rupiahPerCredit: 150 }, new Date(), env.table);
  const variant = (templateId: string, category?: TemplateCategory) => ({
    ...template,
    id: templateId,
    ...(category ? { category } : {}),
    versions: [{ ...template.versions[0]!, id: randomUUID() }],
  });
  await saveTemplate(id, variant(MARKETING, 'MARKETING'), env.table);
  await saveTemplate(id, variant(UTILITY, 'UTILITY'), env.table);
  await saveTemplate(id, variant(UNCATEGORISED), env.table);
  return id;
}

const send = (workspaceId: string, templateId: string, to = '081234567890') => {
  const command: SendTemplateMessage = {
    workspaceId,
    apiClient: { id: randomUUID(), name: 'backend' },
    to,
    templateId,
    variables: { name: 'Budi', order: 'A-1' },
    tagIds: [],
    trackingTags: [],
    now: new Date(),
  };
  return sendTemplateMessage(command, { store: env.table, queue: env.queues });
};
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as AppError);
const tap = (workspaceId: string, overrides: Partial<Parameters<typeof optOutFromReply>[0]> = {}) =>
  optOutFromReply({ workspaceId, phone: '6281234567890', type: 'button', text: 'Stop promotions', payload: 'Stop promotions', occurredAt: '2026-11-02T03:00:00.000Z', providerMessageId: 'wamid.stop-1', ...overrides }, env.table);

afterEach(async () => {
  await env.queues.receiveAll();
});

describe('marketing opt-outs against DynamoDB Local', () => {
  it('stores a "Stop promotions" tap as the number’s opt-out, keyed by its E.164 form, and keeps the first of repeated taps with the latest one’s time', async () => {
    const ws = await workspace();

    expect(await tap(ws)).toBe(true);
    expect(await tap(ws, { occurredAt: '2026-11-03T00:00:00.000Z', providerMessageId: 'wamid.stop-2' })).toBe(true);
    expect(await tap(ws, { text: 'Track order', payload: 'track' })).toBe(false);

    const items = (await env.table.scanAll()).filter((item) => item.entity === 'marketingOptOut' && item.workspaceId === ws);
    expect(items).toEqual([
      {
        ...keys.marketingOptOut(ws, '+6281234567890'),
        entity: 'marketingOptOut',
        workspaceId: ws,
        phone: '+6281234567890',
        optedOutAt: '2026-11-02T03:00:00.000Z',
        source: 'button',
        providerMessageId: 'wamid.stop-1',
        // The later tap's time, for a resume between the two that Meta delivers last (decision 234).
        lastStoppedAt: '2026-11-03T00:00:00.000Z',
      },
    ]);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ optedOutAt: '2026-11-02T03:00:00.000Z' });
  });

  it('refuses a MARKETING send to an opted-out number with 422 recipient_opted_out and writes nothing; other categories still send', async () => {
    const ws = await workspace();
    await tap(ws);
    const before = (await env.table.scanAll()).length;

    const refused = await rejection(send(ws, MARKETING, '0812-3456-7890'));
    expect([refused?.status, refused?.code]).toEqual([422, 'recipient_opted_out']);
    expect((await env.table.scanAll()).length).toBe(before);
    expect(await env.queues.receiveAll()).toEqual([]);

    await expect(send(ws, UTILITY)).resolves.toMatchObject({ status: 'queued' });
    await expect(send(ws, UNCATEGORISED)).resolves.toMatchObject({ status: 'queued' });
    // Another number, and the same number in another workspace, are not opted out.
    await expect(send(ws, MARKETING, '081234567891')).resolves.toMatchObject({ status: 'queued' });
    await expect(send(await workspace(), MARKETING)).resolves.toMatchObject({ status: 'queued' });
  });

  it('lists a workspace’s opt-outs, and a removed one lets marketing sends through again', async () => {
    const ws = await workspace();
    await tap(ws);
    await recordMarketingOptOut({ workspaceId: ws, phone: '+6281200000001', optedOutAt: '2026-11-04T00:00:00.000Z', source: 'admin' }, env.table);
    await tap(await workspace());

    expect((await listMarketingOptOuts(ws, env.table)).map(({ phone, source }) => [phone, source])).toEqual([
      ['+6281200000001', 'admin'],
      ['+6281234567890', 'button'],
    ]);

    expect(await removeMarketingOptOut(ws, '+6281234567890', env.table)).toBe(true);
    expect(await removeMarketingOptOut(ws, '+6281234567890', env.table)).toBe(false);
    await expect(send(ws, MARKETING)).resolves.toMatchObject({ status: 'queued' });
  });

  // Meta re-delivers a POST we did not answer 200 for days: the tap an operator had lifted came back
  // and opted the number out again, and the marketing sends the customer asked for were refused.
  it('keeps an operator’s lift against the customer’s older word arriving late, not against a newer one', async () => {
    const ws = await workspace();
    await tap(ws);
    expect(await removeMarketingOptOut(ws, '+6281234567890', env.table, new Date('2026-11-03T00:00:00.000Z'))).toBe(true);

    await tap(ws);
    await recordMarketingOptOut({ workspaceId: ws, phone: '+6281234567890', optedOutAt: '2026-11-02T09:00:00.000Z', source: 'whatsapp' }, env.table);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toBeUndefined();
    await expect(send(ws, MARKETING)).resolves.toMatchObject({ status: 'queued' });

    await tap(ws, { occurredAt: '2026-11-04T00:00:00.000Z', providerMessageId: 'wamid.stop-2' });
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ source: 'button', optedOutAt: '2026-11-04T00:00:00.000Z' });
  });

  it('keeps the lift when the customer’s older tap lands while the lift is being written', async () => {
    const ws = await workspace();
    await tap(ws);
    // Meta re-delivers a tap of 04:00, before the lift, at the very moment the lift is written.
    let landed = false;
    const tapDuringLift: BuildMiddleware<object, object> = (next, context) => async (args) => {
      const answer = await next(args);
      if (!landed && ['DeleteItemCommand', 'TransactWriteItemsCommand'].includes(String(context.commandName))) {
        landed = true;
        await tap(ws, { occurredAt: '2026-11-02T04:00:00.000Z', providerMessageId: 'wamid.stop-2' });
      }
      return answer;
    };
    env.table.db.middlewareStack.add(tapDuringLift as never, { step: 'build', name: 'tap-during-lift' });
    try {
      expect(await removeMarketingOptOut(ws, '+6281234567890', env.table, new Date('2026-11-03T00:00:00.000Z'))).toBe(true);
    } finally {
      env.table.db.middlewareStack.remove('tap-during-lift');
    }
    expect(landed).toBe(true);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toBeUndefined();
  });
});

describe('an Argentine customer’s "Stop promotions" (decision 208)', () => {
  // A review: WhatsApp names the customer 549 11 …, the integration writes +54 11 …; the tap was
  // stored under +5491123456789 and the next MARKETING send to +54 11 2345 6789 went out.
  it('refuses the next MARKETING send to the number as the integration writes it, with or without the 9', async () => {
    const ws = await workspace();
    const waId = '5491123456789';
    // A quick-reply tap, as Meta's webhook reference documents a `button` message.
    const stop = whatsAppEnvelope(
      'messages',
      {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550783881', phone_number_id: `sandbox:${ws}` },
        contacts: [{ profile: { name: 'Lucía' }, wa_id: waId }],
        messages: [
          {
            context: { from: '15550783881', id: 'wamid.HBgNNTQ5MTEyMzQ1Njc4ORUCABEYEjhDMTk5NzRGRTlFRDhBOTY2MwA=' },
            from: waId,
            id: `wamid.HBgNNTQ5MTEyMzQ1Njc4ORUCABIYIDU.${ws}`,
            timestamp: '1793502000',
            type: 'button',
            button: { payload: 'Stop promotions', text: 'Stop promotions' },
          },
        ],
      },
      '102290129340398',
    );
    await applyProviderReports(stop, env.table);

    for (const to of ['+54 11 2345 6789', '+54 9 11 2345 6789']) {
      const refused = await rejection(send(ws, MARKETING, to));
      expect([to, refused?.code]).toEqual([to, 'recipient_opted_out']);
    }
    expect(await getMarketingOptOut(ws, '+541123456789', env.table)).toMatchObject({ source: 'button' });
  });
});

describe('an opt-out recorded while a marketing message waits on the queue', () => {
  /** A provider that takes every message, counting the calls. */
  const counting = () => {
    const calls: string[] = [];
    return { calls, provider: { send: (message: { dispatchId: string }) => (calls.push(message.dispatchId), Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` })), settle: () => Promise.resolve() } };
  };
  const deliver = (ws: string, dispatchId: string, provider: ReturnType<typeof counting>['provider'], store: Store = env.table) =>
    deliverQueuedDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store, queue: env.queues });

  // The opt-out was checked only when the send was accepted: a paced campaign, WhatsApp's "later" or
  // a backlog handed a promotion to WhatsApp after the customer's "Stop promotions" or an operator's
  // opt-out (a request by email), and only a stop WhatsApp itself holds (131050) kept it from them.
  it('fails the MARKETING message recipient_opted_out without asking WhatsApp; other categories are still sent', async () => {
    const ws = await workspace();
    const marketing = await send(ws, MARKETING);
    const utility = await send(ws, UTILITY);
    await recordMarketingOptOut({ workspaceId: ws, phone: '+6281234567890', optedOutAt: new Date().toISOString(), source: 'admin' }, env.table);
    const { provider, calls } = counting();

    expect(await deliver(ws, marketing.dispatchId, provider)).toEqual({ outcome: 'failed' });
    expect(await deliver(ws, utility.dispatchId, provider)).toEqual({ outcome: 'sent' });

    expect(calls).toEqual([utility.dispatchId]);
    const refused = await getDispatchById(marketing.dispatchId, env.table);
    expect(refused).toMatchObject({ status: 'failed', failureCode: 'recipient_opted_out', sentAt: null });
    expect(refused).not.toHaveProperty('attemptStartedAt');
    await runStreamConsumer(env.table);
    const events = (await env.table.scanAll()).filter((item) => item.entity === 'deliveryEvent' && item.dispatchId === marketing.dispatchId).map((item) => item.status);
    expect(events).toEqual(['REJECTED']);
  });

  it('gives the claim back uncounted when the opt-out cannot be read, and sends nothing until it can', async () => {
    const ws = await workspace();
    const marketing = await send(ws, MARKETING);
    const { provider, calls } = counting();
    const optOutsAway: Store = {
      tableName: env.table.tableName,
      db: {
        send: (command: { input: { Key?: { sk?: unknown } } }) =>
          typeof command.input.Key?.sk === 'string' && command.input.Key.sk.startsWith('OPTOUT#')
            ? Promise.reject(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }))
            : env.table.db.send(command as never),
      } as unknown as Store['db'],
    };

    expect(await deliver(ws, marketing.dispatchId, provider, optOutsAway)).toMatchObject({ outcome: 'retry' });
    expect(calls).toEqual([]);
    const released = await getDispatchById(marketing.dispatchId, env.table);
    expect(released).toMatchObject({ status: 'processing', failureCode: null });
    expect(released).not.toHaveProperty('attemptStartedAt');
    expect(released?.laterAnswers ?? 0).toBe(0);

    expect(await deliver(ws, marketing.dispatchId, provider)).toEqual({ outcome: 'sent' });
    expect(calls).toEqual([marketing.dispatchId]);
  });
});

describe('WhatsApp’s 131050 and a retried POST', () => {
  // The dispatch's move to `failed` and the opt-out are two writes. When the second failed (a
  // throttle, a conflict, a timeout), Meta's retry found the dispatch failed already, moved
  // nothing, and so never recorded the opt-out: marketing sends went on, each refused by WhatsApp.
  it('records the opt-out on Meta’s retry when its first write failed after the dispatch was failed', async () => {
    const id = randomUUID().slice(0, 8);
    const ws = `ws-${id}`;
    const number = `pn-${id}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: number } }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const sentAt = new Date('2026-11-01T03:00:00.000Z');
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'backend' }, to: '081234560001', templateId: TEMPLATE_ID, variables: { name: 'Sari', order: 'A-1' }, tagIds: [], trackingTags: [], now: sentAt },
      { store: env.table, queue: env.queues },
    );
    const wamid = `wamid.HBgNNjI4MTIzNDU2MDAwMRUCABEYEjEzMTA1MEEA${id}`;
    const provider = { send: () => Promise.resolve({ providerMessageId: wamid }), settle: () => Promise.resolve() };
    expect(await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table, now: () => sentAt })).toBe('sent');
    await runStreamConsumer(env.table);
    // As Meta's status webhook reference shows a failed status, with the error the existing fixture status-failed-marketing-stopped.json carries.
    const text = 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.';
    const post = {
      object: 'whatsapp_business_account',
      entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '6281100001111', phone_number_id: number },
        statuses: [{ id: wamid, status: 'failed', timestamp: '1793502060', recipient_id: '6281234560001', biz_opaque_callback_data: dispatchId, errors: [{ code: 131050, title: text, message: text, error_data: { details: text } }] }],
      } }] }],
    } as WebhookEnvelope;

    // The opt-out's write is throttled once: the POST answers 500, and Meta retries it.
    let throttled = false;
    const throttlingOptOuts: Store = {
      tableName: env.table.tableName,
      db: {
        send: (command: { input: { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[]; Item?: Record<string, unknown> } }) => {
          const puts = [...(command.input.TransactItems ?? []).map((item) => item.Put?.Item), command.input.Item];
          if (!throttled && puts.some((item) => typeof item?.sk === 'string' && item.sk.startsWith('OPTOUT#'))) {
            throttled = true;
            return Promise.reject(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' }));
          }
          return env.table.db.send(command as never);
        },
      } as unknown as Store['db'],
    };
    await expect(applyProviderReports(post, throttlingOptOuts)).rejects.toThrow('Throughput');
    expect(throttled).toBe(true);
    expect(await getDispatchById(dispatchId, env.table)).toMatchObject({ status: 'failed', failureCode: '131050' });
    expect(await listMarketingOptOuts(ws, env.table)).toEqual([]);

    await applyProviderReports(post, env.table);
    expect(await listMarketingOptOuts(ws, env.table)).toEqual([expect.objectContaining({ phone: '+6281234560001', source: 'whatsapp', optedOutAt: '2026-11-01T03:01:00.000Z' })]);
    // Another replay keeps the one record.
    await applyProviderReports(post, env.table);
    expect(await listMarketingOptOuts(ws, env.table)).toHaveLength(1);
  });
});

describe('a signed POST replayed after Meta’s re-deliveries have ended', () => {
  // Meta's signature carries no time: whoever kept a POST (a logging proxy, a leaked request log)
  // can send it again byte for byte, and it verifies. The resume (or lift) that guarded against the
  // customer's older word was remembered for eight days; a replay after that opted the customer out
  // again, and every marketing send they had asked for was refused.
  const DAY = 86_400_000;
  const seconds = (at: Date) => String(Math.floor(at.getTime() / 1000));
  let receive: RouteHandler;
  beforeAll(async () => {
    process.env.QUEUE_URL = env.queues.queueUrl;
    ({ handler: receive } = (await import('../../lambdas/handlers/whatsapp-webhook')) as { handler: RouteHandler });
  });
  const post = async (body: string) =>
    (await invokeRoute('whatsappWebhook', receive, routeEvent('whatsappWebhook', { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, process.env.WHATSAPP_APP_SECRET!) } }))).statusCode;
  const numberOf = async (ws: string) => {
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    return { display_phone_number: '15550783881', phone_number_id: `sandbox:${ws}` };
  };
  /** A "Stop promotions" quick-reply tap, as Meta's messages webhook reference documents a `button` message. */
  const stopTap = (metadata: object, at: Date, id = 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYFjNFQjBDNzQ1RjQxRkQ4QzYwQjZBAA==') =>
    JSON.stringify(
      whatsAppEnvelope(
        'messages',
        {
          messaging_product: 'whatsapp',
          metadata,
          contacts: [{ profile: { name: 'Budi' }, wa_id: '6281234567890' }],
          messages: [
            {
              context: { from: '15550783881', id: 'wamid.HBgLMTU1NTA3ODM4ODEVAgARGBI4QzE5OTc0RkU5RUQ4QTk2NjMA' },
              from: '6281234567890',
              id,
              timestamp: seconds(at),
              type: 'button',
              button: { payload: 'Stop promotions', text: 'Stop promotions' },
            },
          ],
        },
        '102290129340398',
      ),
    );
  /** The customer stops or resumes marketing messages in WhatsApp (Meta's user_preferences webhook reference). */
  const preference = (metadata: object, value: 'stop' | 'resume', at: Date) =>
    JSON.stringify(
      whatsAppEnvelope(
        'user_preferences',
        {
          messaging_product: 'whatsapp',
          metadata,
          contacts: [{ profile: { name: 'Budi' }, wa_id: '6281234567890' }],
          user_preferences: [{ wa_id: '6281234567890', detail: `User requested to ${value} marketing messages`, category: 'marketing_messages', value, timestamp: Number(seconds(at)) }],
        },
        '102290129340398',
      ),
    );

  it('records nothing from a "Stop promotions" tap replayed after the customer resumed; a newer tap still opts out', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const number = await numberOf(ws);
    // Ten days ago the customer tapped "Stop promotions"; a day later they resumed in WhatsApp.
    const tapped = stopTap(number, new Date(Date.now() - 10 * DAY));
    expect(await post(tapped)).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ source: 'button' });
    expect(await post(preference(number, 'resume', new Date(Date.now() - 9 * DAY)))).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toBeUndefined();

    // Today, with every item DynamoDB's TTL would have deleted gone, the kept POST is sent again.
    await expireTtlItems(env.table, new Date());
    expect(await post(tapped)).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toBeUndefined();

    // The customer's own later word still counts.
    expect(await post(stopTap(number, new Date(), 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYFjJDNEUzQTE5RDBBN0I5MkU1RkIzAA=='))).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ source: 'button', providerMessageId: 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYFjJDNEUzQTE5RDBBN0I5MkU1RkIzAA==' });
  });

  it('keeps the customer opted out when their stop, tapped again after a resume, arrives before that resume (webhooks out of order)', async () => {
    const ws = await workspace();
    const number = { display_phone_number: '15550783881', phone_number_id: `sandbox:${ws}` };
    const hour = 3_600_000;
    // 09:00 the customer taps "Stop promotions"; 10:00 they resume in WhatsApp; 11:00 they tap it again.
    // Meta delivers the two taps, and the resume last (its first POST was not answered 200).
    expect(await post(stopTap(number, new Date(Date.now() - 3 * hour)))).toBe(200);
    expect(await post(stopTap(number, new Date(Date.now() - hour), 'wamid.HBgLNjI4MTIzNDU2Nzg5MBUCABIYFjJDNEUzQTE5RDBBN0I5MkU1RkIzAA=='))).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ source: 'button' });
    expect(await post(preference(number, 'resume', new Date(Date.now() - 2 * hour)))).toBe(200);

    // The customer's last word is the 11:00 stop: marketing sends to them must still be refused.
    const refused = await rejection(send(ws, MARKETING));
    expect([refused?.status, refused?.code]).toEqual([422, 'recipient_opted_out']);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toMatchObject({ source: 'button' });
  });

  it('records nothing from WhatsApp’s stop replayed after an operator’s lift', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const number = await numberOf(ws);
    const stopped = preference(number, 'stop', new Date(Date.now() - 10 * DAY));
    expect(await post(stopped)).toBe(200);
    expect(await removeMarketingOptOut(ws, '+6281234567890', env.table, new Date(Date.now() - 9 * DAY))).toBe(true);

    await expireTtlItems(env.table, new Date());
    expect(await post(stopped)).toBe(200);
    expect(await getMarketingOptOut(ws, '+6281234567890', env.table)).toBeUndefined();
  });

  it('keeps for good a remembered resume that an earlier version gave an expiry, once the customer resumes again', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const number = await numberOf(ws);
    const resumedAt = new Date(Date.now() - 2 * DAY);
    const key = keys.marketingResume(ws, '+6281234567890');
    await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: { ...key, entity: 'marketingResume', resumedAt: resumedAt.toISOString(), ttl: Math.floor(resumedAt.getTime() / 1000) + 8 * 86_400 } }));

    const resumedAgain = new Date(Math.floor((Date.now() - DAY) / 1000) * 1000);
    expect(await post(preference(number, 'resume', resumedAgain))).toBe(200);
    const { Item } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: key }));
    expect(Item).toEqual({ ...key, entity: 'marketingResume', resumedAt: resumedAgain.toISOString() });
  });
});
