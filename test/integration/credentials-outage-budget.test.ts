import { randomUUID } from 'node:crypto';
import { deliverQueuedDispatch, type DeliveryDependencies } from '../../lambdas/domain/delivery/deliver-dispatch';
import { reconcile } from '../../lambdas/domain/delivery/reconcile';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import type { DispatchMessage } from '../../lambdas/domain/messages/dispatch-queue';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { whatsAppCloudProvider, type WhatsAppCloudOptions } from '../../lambdas/domain/providers/whatsapp-cloud';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * docs/architecture.md, the delivery path: the provider's fifth "later" fails a dispatch, and
 * "receives spent before the provider was asked (a consumer killed, the table away) cost none of
 * them". Secrets Manager not answering, and a connection never made, are such faults of ours:
 * WhatsApp is never asked. They spend none of the dispatch's budget and fail no message; the
 * message goes the way of any fault of ours, to the DLQ after its fifth receive (a receive that
 * ends `retry` fails its record), and the runbook's redrive, or the reconciler, sends it once
 * (decision 205).
 */
const env = useTableAndQueues();
jest.setTimeout(120_000);

const accepted = () => Promise.resolve(new Response(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.${randomUUID()}` }] }), { status: 200, headers: { 'content-type': 'application/json' } }));

async function queuedDispatch(to: string) {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { provider: 'whatsapp', whatsappPhoneNumberId: `pn-${ws}` } }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to, templateId: TEMPLATE_ID, variables: { name: 'Budi', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  await env.queues.receiveAll();
  return { ws, dispatchId };
}

const dependencies = (options: Pick<WhatsAppCloudOptions, 'credentials' | 'fetch'>): DeliveryDependencies => {
  const provider = whatsAppCloudProvider({ baseUrl: 'http://graph.invalid/v23.0', timeoutMs: 2_000, ...options });
  return { providerFor: () => provider, store: env.table, queue: env.queues };
};

/** The queue's five receives of one message (2, 4, 8 and 16 s apart): the outcome of each until one is not `retry`. */
async function fiveReceives(message: DispatchMessage, deps: DeliveryDependencies) {
  const outcomes: string[] = [];
  for (let receive = 1; receive <= 5 && outcomes.at(-1) !== 'sent'; receive++) outcomes.push((await deliverQueuedDispatch({ ...message, receiveCount: receive, maxReceives: 5 }, deps)).outcome);
  return outcomes;
}

/** What of the dispatch says whether it is settled, claimed, or has spent any of WhatsApp's answers. */
const stateOf = async (ws: string, dispatchId: string) => {
  const dispatch = await getDispatch(ws, dispatchId, env.table);
  return { status: dispatch?.status, failureCode: dispatch?.failureCode ?? null, claimed: dispatch?.attemptStartedAt !== undefined, laterAnswers: dispatch?.laterAnswers ?? 0 };
};

it('a Secrets Manager outage of half an hour spends none of the provider’s five answers: once it ends, the message is sent', async () => {
  const { ws, dispatchId } = await queuedDispatch('081234560001');
  let secretsManagerAway = true;
  let graphCalls = 0;
  const deps = dependencies({
    // What getSecret throws when Secrets Manager does not answer.
    credentials: () => (secretsManagerAway ? Promise.reject(Object.assign(new Error('connect ETIMEDOUT secretsmanager'), { name: 'TimeoutError' })) : Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' })),
    fetch: () => ((graphCalls += 1), accepted()),
  });

  // Each message's five receives fail its record, so it goes to the DLQ; the reconciler queues the
  // dispatch, left `queued`, again; for 30 minutes.
  const start = Date.now();
  const deadLetters: DispatchMessage[] = [];
  let message: DispatchMessage | undefined = { dispatchId, workspaceId: ws };
  for (let minutes = 5; minutes <= 30 && message; minutes += 5) {
    expect(await fiveReceives(message, deps)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
    deadLetters.push(message);
    expect(await stateOf(ws, dispatchId)).toEqual({ status: 'queued', failureCode: null, claimed: false, laterAnswers: 0 });
    await reconcile(new Date(start + minutes * 60_000), env.table, env.queues);
    message = ((await env.queues.receiveAll()) as DispatchMessage[]).find((body) => body.dispatchId === dispatchId);
  }

  // Secrets Manager answers again. The runbook's redrive hands the DLQ's messages back, and the
  // reconciler's last message is still on the queue: the first of them sends it, the rest skip it.
  secretsManagerAway = false;
  const outcomes = [];
  for (const dead of [...deadLetters, ...(message ? [message] : [])]) outcomes.push((await deliverQueuedDispatch({ ...dead, receiveCount: 1, maxReceives: 5 }, deps)).outcome);
  expect(outcomes).toEqual(['sent', ...outcomes.slice(1).map(() => 'skipped')]);
  const dispatch = await getDispatch(ws, dispatchId, env.table);
  expect({ status: dispatch?.status, failureCode: dispatch?.failureCode ?? null, graphCalls }).toEqual({ status: 'sent', failureCode: null, graphCalls: 1 });
});

/**
 * The same rule for the other fault decision 160 says never reached WhatsApp: a name that does not
 * resolve for a moment (EAI_AGAIN: the resolver busy), "transient (`network`), since no request was
 * written". Half a minute of it (the five receives' 2, 4, 8, 16 s) is not WhatsApp saying "later".
 * The claim each receive took is given back, so the dispatch is left for the reconciler and the DLQ.
 */
it('half a minute of DNS failures (no request written) spends none of the provider’s five answers: once it resolves, the message is sent', async () => {
  const { ws, dispatchId } = await queuedDispatch('081234560002');
  let resolverAway = true;
  let written = 0;
  const deps = dependencies({
    credentials: () => Promise.resolve({ accessToken: 't', appSecret: 's', verifyToken: 'v' }),
    // undici's error for a name the resolver could not look up just now: nothing was written.
    fetch: () => {
      if (resolverAway) return Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo EAI_AGAIN graph.facebook.com'), { code: 'EAI_AGAIN' }) }));
      written += 1;
      return accepted();
    },
  });

  const message = { dispatchId, workspaceId: ws };
  expect(await fiveReceives(message, deps)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
  expect(await stateOf(ws, dispatchId)).toEqual({ status: 'processing', failureCode: null, claimed: false, laterAnswers: 0 });

  // The resolver answers again: the reconciler queues the released dispatch, and its message sends it.
  resolverAway = false;
  await reconcile(new Date(Date.now() + 5 * 60_000), env.table, env.queues);
  const again = ((await env.queues.receiveAll()) as DispatchMessage[]).find((body) => body.dispatchId === dispatchId);
  expect(again).toEqual(message);
  expect((await deliverQueuedDispatch({ ...again!, receiveCount: 1, maxReceives: 5 }, deps)).outcome).toBe('sent');
  // The runbook's redrive of the DLQ's copy, after that: nothing is sent twice.
  expect((await deliverQueuedDispatch({ ...message, receiveCount: 1, maxReceives: 5 }, deps)).outcome).toBe('skipped');
  const dispatch = await getDispatch(ws, dispatchId, env.table);
  expect({ status: dispatch?.status, failureCode: dispatch?.failureCode ?? null, written }).toEqual({ status: 'sent', failureCode: null, written: 1 });
});
