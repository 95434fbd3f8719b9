import '../bin/node-check.cjs';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS } from '../lib/local/paths';
import { startQueuePoller, type SqsHandler } from '../lib/local/queue-poller';
import { ProviderError, type ProviderMessage } from '../lambdas/domain/providers/provider';

/**
 * The deliver consumer of `npm run chaos` in a process of its own, so the chaos run can SIGKILL it
 * mid-batch and start it again. It runs the real deliver handler, fed by the local queue poller,
 * against the table and queue the parent's runtime made (the parent passes its environment on).
 *
 * The one thing it does not own is the provider: the sandbox runs in the chaos harness, reached
 * over HTTP (CHAOS_PROVIDER_URL), as WhatsApp is outside our consumer. So a killed consumer loses
 * neither the provider's count of calls nor the reports it owes, exactly as with the real provider.
 */
const { CHAOS_PROVIDER_URL, CHAOS_QUEUE_ARN, QUEUE_URL, SQS_ENDPOINT, AWS_REGION } = process.env;
if (!CHAOS_PROVIDER_URL || !CHAOS_QUEUE_ARN || !QUEUE_URL || !SQS_ENDPOINT || !AWS_REGION) throw new Error('chaos-consumer is started by bench/chaos.ts, which passes its environment');
const providerUrl = CHAOS_PROVIDER_URL;

const { providerFor } = await import('../lambdas/domain/providers/provider-for');
const sandbox = providerFor({ provider: 'sandbox' });
sandbox.send = async (message: ProviderMessage) => {
  const response = await fetch(providerUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
  const answer = (await response.json()) as { providerMessageId?: string; error?: { kind: ProviderError['kind']; code: string; message: string } };
  if (answer.error) throw new ProviderError(answer.error.kind, answer.error.code, answer.error.message);
  return { providerMessageId: answer.providerMessageId! };
};
sandbox.settle = () => Promise.resolve();

const deliver = (await import('../lambdas/handlers/deliver')) as { handler: SqsHandler };
const sqs = new SQSClient({ endpoint: SQS_ENDPOINT, region: AWS_REGION, credentials: LOCAL_CREDENTIALS });
// Errors met while a dependency is away are the point of the run: counted by the parent from the outcomes, not logged.
startQueuePoller({ sqs, queueUrl: QUEUE_URL, queueArn: CHAOS_QUEUE_ARN, region: AWS_REGION, handler: deliver.handler, onError: () => undefined });
process.send?.('ready');
