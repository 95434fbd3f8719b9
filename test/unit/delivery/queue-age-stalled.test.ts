import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dispatchQueueAge } from '../../../lambdas/domain/delivery/queue-age';
import { CLOUDWATCH_CALL_TIMEOUTS } from '../../../lambdas/shared/cloudwatch-client';

/**
 * The reconciler asks CloudWatch how long its queue held its oldest message (decision 137). A
 * CloudWatch that takes the connection and never answers held it until its function's 60 s ended,
 * reconciling nothing that run: the call gives up, and the age is unknown, as when CloudWatch fails.
 */
it('is unknown, not waited for, when CloudWatch takes a connection and never answers', async () => {
  const stalled = createServer(() => undefined);
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
    // The functions' settings, but for the SDK's three tries: one shows the bound.
    const client = new CloudWatchClient({ region: 'ap-southeast-3', endpoint, maxAttempts: 1, requestHandler: CLOUDWATCH_CALL_TIMEOUTS, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const prodQueue = { sqs: new SQSClient({ region: 'ap-southeast-3' }), queueUrl: 'https://sqs.ap-southeast-3.amazonaws.com/123456789012/MessagingApi-prod-dispatch' };
    await expect(dispatchQueueAge(prodQueue, new Date(), client)).resolves.toBeUndefined();
  } finally {
    stalled.closeAllConnections();
    await new Promise((resolve) => stalled.close(resolve));
  }
});
