import { captureMetrics } from '../../support/metrics';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { SQSEvent } from 'aws-lambda';
import { signWebhookBody, statusWebhook } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { ProviderError } from '../../../lambdas/domain/providers/provider';
import * as providers from '../../../lambdas/domain/providers/provider-for';
import { handler as deliver } from '../../../lambdas/handlers/deliver';
import { handler as send } from '../../../lambdas/handlers/send-message';
import { handler as receiveWebhook } from '../../../lambdas/handlers/whatsapp-webhook';
import { dispatchQueueSettings } from '../../../lambdas/shared/dispatch-queue-settings';
import { metricNames } from '../../../lambdas/shared/metric-names';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches, workspaceItem } from '../../../lib/testing';
import { sqsEvent } from '../../../lib/testing/sqs-events';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { SEND_KEY, stubHealthySend, validSend, WORKSPACE } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const capture = captureMetrics();
afterAll(() => capture.restore());

const SERVICE = { service: 'messaging-api' };
const NAMESPACE = 'MessagingApi-local';

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
  capture.clear();
});

/** Sends through the real handler and returns the dispatch item it wrote. */
async function sendTo(to: string) {
  const { status } = parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend({ to }) }), lambdaContext('sendMessage')));
  expect(status).toBe(202);
  const item = ddb.commandCalls(TransactWriteCommand).at(-1)!.args[0].input.TransactItems![0]!.Put!.Item!;
  capture.clear();
  return item;
}

/** One queue delivery of the dispatch, the claim answered as DynamoDB would. */
async function deliverOnce(item: Record<string, unknown>, receiveCount = 1) {
  ddb.on(UpdateCommand).resolves({ Attributes: { ...item, status: 'processing', attemptStartedAt: new Date().toISOString() } });
  const event: SQSEvent = {
    Records: [
      {
        messageId: 'm-1',
        receiptHandle: 'r-1',
        body: JSON.stringify({ dispatchId: item.dispatchId, workspaceId: item.workspaceId }),
        attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 's', ApproximateFirstReceiveTimestamp: '0' },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:ap-southeast-3:000000000000:dispatch',
        awsRegion: 'ap-southeast-3',
      },
    ],
  };
  return deliver(event, lambdaContext('deliver'));
}

describe('business metrics, as the functions write them (EMF)', () => {
  it('counts an accepted send as queued, in the stack’s namespace with the service dimension', async () => {
    const { status } = parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend() }), lambdaContext('sendMessage')));
    expect(status).toBe(202);
    expect(capture.emitted()).toEqual([{ namespace: NAMESPACE, name: metricNames.queued, unit: 'Count', dimensions: SERVICE, values: [1] }]);
  });

  it('counts a send the queue refused as failed with code enqueue_failed, and not as queued', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('ServiceUnavailable'));
    const { status } = parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend() }), lambdaContext('sendMessage')));
    expect(status).toBe(502);
    expect(capture.sum(metricNames.queued)).toBe(0);
    expect(capture.sum(metricNames.failed, SERVICE)).toBe(1);
    expect(capture.sum(metricNames.failed, { ...SERVICE, FailureCode: 'enqueue_failed' })).toBe(1);
  });

  it('writes nothing for a request that records no metric', async () => {
    parseResult(await send(routeEvent('sendMessage', { apiKey: SEND_KEY, body: validSend({ to: 'not a phone' }) }), lambdaContext('sendMessage')));
    expect(capture.emitted()).toEqual([]);
  });

  it('counts an accepted provider call as sent, with its latency', async () => {
    await deliverOnce(await sendTo('081234567890'));
    expect(capture.sum(metricNames.sent, SERVICE)).toBe(1);
    expect(capture.sum(metricNames.failed)).toBe(0);
    const [latency] = capture.emitted().filter((metric) => metric.name === metricNames.providerLatency);
    expect(latency).toMatchObject({ unit: 'Milliseconds', dimensions: SERVICE, values: [expect.any(Number)] });
  });

  it('counts a rejection as failed, by the provider’s code', async () => {
    await deliverOnce(await sendTo('081234560000'));
    expect(capture.sum(metricNames.sent)).toBe(0);
    expect(capture.sum(metricNames.failed, SERVICE)).toBe(1);
    expect(capture.sum(metricNames.failed, { ...SERVICE, FailureCode: '131026' })).toBe(1);
  });

  it('counts a rate-limited attempt as deferred, neither sent nor failed, and the provider’s last “later” as failed with retries_exhausted', async () => {
    const item = await sendTo('081234560429');
    expect(await deliverOnce(item)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(capture.emitted().map((metric) => metric.name).sort()).toEqual([metricNames.deliveryDeferred, metricNames.providerLatency].sort());
    expect(capture.sum(metricNames.deliveryDeferred, SERVICE)).toBe(1);

    capture.clear();
    // WhatsApp still answering "later" on the last receive (the sandbox's 0429 says it twice only).
    jest.spyOn(providers, 'providerFor').mockReturnValueOnce({ send: () => Promise.reject(new ProviderError('transient', '130429', 'Rate limit hit')), settle: () => Promise.resolve() });
    await deliverOnce({ ...item, laterAnswers: dispatchQueueSettings.maxReceiveCount - 1 });
    expect(capture.sum(metricNames.deliveryDeferred, SERVICE)).toBe(1);
    expect(capture.sum(metricNames.failed, { ...SERVICE, FailureCode: 'retries_exhausted' })).toBe(1);
  });

  it('counts a “later” on the message’s last receive as deferred, and not as held or failed', async () => {
    const item = await sendTo('081234560429');
    expect(await deliverOnce(item, dispatchQueueSettings.maxReceiveCount)).toEqual({ batchItemFailures: [] });
    expect(capture.sum(metricNames.deliveryDeferred, SERVICE)).toBe(1);
    expect(capture.sum(metricNames.deliveryHeld)).toBe(0);
    expect(capture.sum(metricNames.failed)).toBe(0);
  });

  it('counts dispatches held back for their number’s pace as paced, and nothing else', async () => {
    ddb.on(GetCommand, { Key: keys.workspace(WORKSPACE) }).resolves({ Item: workspaceItem({ settings: { provider: 'whatsapp', whatsappPhoneNumberId: '106540352242922', whatsappMessagesPerSecond: 1 } }) });
    // The pace's counter answers as a fresh second; the one claim it lets through finds its dispatch settled.
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) =>
      String(input.Key!.pk).startsWith('PACE#') ? Promise.resolve({ Attributes: { offered: 3 } }) : Promise.reject(Object.assign(new Error('condition failed'), { name: 'ConditionalCheckFailedException' })),
    );
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const dispatch = (i: number) => ({ dispatchId: `8f14e45f-ceea-467a-9575-00000000000${i}`, workspaceId: WORKSPACE });

    await deliver(sqsEvent([dispatch(1), dispatch(2), dispatch(3)]), lambdaContext('deliver'));

    expect(capture.emitted().map((metric) => metric.name)).toEqual([metricNames.deliveryPaced]);
    expect(capture.sum(metricNames.deliveryPaced, SERVICE)).toBe(2);
  });

  it('counts an unknown outcome as neither sent nor failed', async () => {
    await deliverOnce(await sendTo('081234560504'));
    expect(capture.emitted().map((metric) => metric.name)).toEqual([metricNames.providerLatency]);
  });

  describe('provider reports', () => {
    const report = async (item: Record<string, unknown>, status: 'delivered' | 'failed') => {
      ddb.on(GetCommand, { Key: keys.dispatch(item.dispatchId as string) }).resolves({ Item: item });
      ddb.on(GetCommand, { Key: keys.whatsappNumber('1111') }).resolves({ Item: { workspaceId: item.workspaceId } });
      const body = JSON.stringify(
        statusWebhook('1111', [
          { id: 'wamid.1', status, timestamp: '1767225600', biz_opaque_callback_data: item.dispatchId as string, ...(status === 'failed' ? { errors: [{ code: 131049 }] } : {}) },
        ]),
      );
      const headers = { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, 'test-app-secret') };
      expect(parseResult(await receiveWebhook(routeEvent('whatsappWebhook', { body, headers }), lambdaContext('whatsappWebhook'))).status).toBe(200);
    };

    it('count an item the webhook cannot read as skipped, in all and by reason, and still answer 200', async () => {
      const item = await sendTo('081234567890');
      ddb.on(GetCommand, { Key: keys.whatsappNumber('1111') }).resolves({ Item: { workspaceId: item.workspaceId } });
      const body = JSON.stringify(statusWebhook('1111', [{ id: 'wamid.1', status: 'played', timestamp: '1767225600' }]));
      const headers = { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, 'test-app-secret') };
      expect(parseResult(await receiveWebhook(routeEvent('whatsappWebhook', { body, headers }), lambdaContext('whatsappWebhook'))).status).toBe(200);
      expect(capture.sum(metricNames.webhookItemsSkipped, SERVICE)).toBe(1);
      expect(capture.sum(metricNames.webhookItemsSkipped, { ...SERVICE, SkipReason: 'unknown_status' })).toBe(1);
    });

    it('count a webhook POST refused whole: a wrong signature, or a signed body that is not the envelope', async () => {
      const post = async (body: string, signature: string) =>
        parseResult(await receiveWebhook(routeEvent('whatsappWebhook', { body, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature } }), lambdaContext('whatsappWebhook'))).status;
      expect(await post('{"object":"whatsapp_business_account","entry":[]}', signWebhookBody('{}', 'test-app-secret'))).toBe(401);
      expect(await post('{"object":"something_else"}', signWebhookBody('{"object":"something_else"}', 'test-app-secret'))).toBe(422);
      expect(capture.sum(metricNames.webhookRequestsRefused, SERVICE)).toBe(2);
      expect(capture.sum(metricNames.webhookItemsSkipped)).toBe(0);
    });

    it('count a delivery report as delivered, and not as a second send', async () => {
      const item = await sendTo('081234567890');
      await report({ ...item, status: 'sent', sentAt: '2026-01-01T00:00:00.000Z' }, 'delivered');
      expect(capture.sum(metricNames.delivered, SERVICE)).toBe(1);
      expect(capture.sum(metricNames.sent)).toBe(0);
    });

    it('count a delivery report that settles an unknown outcome as both sent and delivered', async () => {
      const item = await sendTo('081234560504');
      await report({ ...item, status: 'unknown' }, 'delivered');
      expect(capture.sum(metricNames.sent, SERVICE)).toBe(1);
      expect(capture.sum(metricNames.delivered, SERVICE)).toBe(1);
    });

    it('count a failure report by its code, and a duplicate report not at all', async () => {
      const item = await sendTo('081234567890');
      await report({ ...item, status: 'sent', sentAt: '2026-01-01T00:00:00.000Z' }, 'failed');
      expect(capture.sum(metricNames.failed, { ...SERVICE, FailureCode: '131049' })).toBe(1);

      capture.clear();
      await report({ ...item, status: 'failed', failureCode: '131049' }, 'failed');
      expect(capture.emitted()).toEqual([]);
    });
  });
});

/**
 * CloudWatch's embedded metric format: "Numeric array metric targets MUST NOT have more than 100
 * members." A line that breaks it is refused whole (AWS/Logs EMFValidationErrors): none of its
 * metrics reaches CloudWatch, so the alarms on them (webhook-items-skipped, a restricted account,
 * dispatch-queue-age's MessagesSent) see nothing. Powertools Metrics writes its line at 100 values.
 */
const EMF_MAX_VALUES = 100;

describe('EMF lines stay within the format’s limits, so CloudWatch reads their metrics', () => {
  it('a WhatsApp POST of 150 status items the webhook sets aside writes no metric with more than 100 values, and still counts all 150', async () => {
    ddb.on(GetCommand, { Key: keys.whatsappNumber('1111') }).resolves({ Item: { workspaceId: WORKSPACE } });
    const statuses = Array.from({ length: 150 }, (_, i) => ({ id: `wamid.${i}`, status: 'played', timestamp: '1767225600' }));
    const body = JSON.stringify(statusWebhook('1111', statuses));
    const headers = { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signWebhookBody(body, 'test-app-secret') };
    expect(parseResult(await receiveWebhook(routeEvent('whatsappWebhook', { body, headers }), lambdaContext('whatsappWebhook'))).status).toBe(200);

    expect(capture.sum(metricNames.webhookItemsSkipped, SERVICE)).toBe(150);
    const oversized = capture.emitted().filter((metric) => metric.values.length > EMF_MAX_VALUES);
    expect(oversized.map((metric) => ({ name: metric.name, dimensions: metric.dimensions, values: metric.values.length }))).toEqual([]);
  });
});
