import { captureMetrics } from '../../support/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { signWebhookBody, statusWebhook } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { handler as receiveWebhook } from '../../../lambdas/handlers/whatsapp-webhook';
import { metricNames } from '../../../lambdas/shared/metric-names';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { lambdaContext, parseResult, routeEvent } from '../../support/events';
import { stubHealthySend, WORKSPACE } from '../../support/send-fixtures';

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);
const capture = captureMetrics();
afterAll(() => capture.restore());

const SERVICE = { service: 'messaging-api' };

/**
 * CloudWatch's embedded metric format: "Numeric array metric targets MUST NOT have more than 100
 * members." A line that breaks it is refused whole (AWS/Logs EMFValidationErrors): none of its
 * metrics reaches CloudWatch, so the alarms on them (webhook-items-skipped, a restricted account,
 * dispatch-queue-age's MessagesSent) see nothing. Powertools Metrics writes its line at 100 values.
 */
const EMF_MAX_VALUES = 100;

beforeEach(() => {
  ddb.reset();
  sqs.reset();
  resetContainerCaches();
  stubHealthySend(ddb, sqs);
  capture.clear();
});

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
