import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { deliverQueuedDispatch, VERDICT_WRITE_TIME_MS } from '../../lambdas/domain/delivery/deliver-dispatch';
import { getDispatch, getDispatchById } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { Provider } from '../../lambdas/domain/providers/provider';
import * as providers from '../../lambdas/domain/providers/provider-for';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { config } from '../../lambdas/shared/config';
import type { Store } from '../../lambdas/shared/store';
import type * as DeliverHandler from '../../lambdas/handlers/deliver';
import { sqsEvent } from '../../lib/testing/sqs-events';
import { lambdaContext } from '../support/events';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * The deliver consumer claimed a dispatch however little of the function's time was left. A claim
 * taken when the provider call cannot finish (and its verdict cannot be written) before Lambda ends
 * the invocation is decision 62's "killed with its request on the wire": the message's next receive
 * finds the claim taken and skips it, and the dispatch waits in `processing` for the reconciler,
 * which, with no reports on the number, settles it `unknown` (never sent) or sends it again once
 * later reports clear it (decision 63). The function's own deadline is known before the claim, as
 * everything else decision 62 moved before it (decision 225; the suspects review's test).
 */

const env = useTableAndQueues();
let deliverBatch: typeof DeliverHandler.deliverBatch;

beforeAll(async () => {
  process.env.QUEUE_URL = env.queues.queueUrl;
  ({ deliverBatch } = await import('../../lambdas/handlers/deliver'));
});
afterEach(async () => {
  jest.restoreAllMocks();
  await env.queues.receiveAll();
});

async function queuedDispatch() {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: [], now: new Date() },
    { store: env.table, queue: env.queues },
  );
  await env.queues.receiveAll();
  return { ws, dispatchId };
}

/** WhatsApp, noting whom it is asked for; `answer` decides what it says. */
function whatsApp(answer: () => Promise<{ providerMessageId: string }> = () => Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` })) {
  const asked: string[] = [];
  const provider: Provider = {
    send: (message) => {
      asked.push(message.dispatchId);
      return answer();
    },
    settle: () => Promise.resolve(),
  };
  return { provider, asked };
}

it('does not claim a dispatch, nor ask WhatsApp, when the function has less time left than the provider call may take', async () => {
  const { ws, dispatchId } = await queuedDispatch();
  // WhatsApp gets the request; its answer would come after the invocation's end (Lambda stops the
  // process at its deadline, so from the function's side it never comes).
  const whatsapp = whatsApp(() => new Promise(() => undefined));
  jest.spyOn(providers, 'providerFor').mockReturnValue(whatsapp.provider);

  // A second of the 30 s left (a batch that waited on the pace, a cold workspace read, a slow claim):
  // well under PROVIDER_TIMEOUT_MS, and under the 2 s the function keeps for its batch answer.
  const leftMs = 1_000;
  expect(leftMs).toBeLessThan(config.PROVIDER_TIMEOUT_MS);
  const delivery = deliverBatch(sqsEvent([{ body: { dispatchId, workspaceId: ws }, receiveCount: 1 }]), lambdaContext('deliver', leftMs));
  await Promise.race([delivery, sleep(leftMs)]);

  // What the invocation left when it answered, or when Lambda ended it: with no time for the call,
  // nothing is claimed and WhatsApp is not asked; the dispatch stays `queued` for its message's return.
  expect({ asked: whatsapp.asked, status: (await getDispatchById(dispatchId, env.table, true))?.status }).toEqual({ asked: [], status: 'queued' });
  // The record failed, as for a fault of ours: the message comes back.
  expect((await delivery).batchItemFailures).toEqual([{ itemIdentifier: expect.any(String) as string }]);
});

it('gives back, unasked, a claim answered too late for the provider call to fit, and sends the message on its next receive', async () => {
  const { ws, dispatchId } = await queuedDispatch();
  const whatsapp = whatsApp();
  // Time enough for the call when the claim is sent; its answer comes 2 s later (a table slow to
  // answer, the SDK's own retries), when it no longer is.
  const enough = config.PROVIDER_TIMEOUT_MS + VERDICT_WRITE_TIME_MS + 1_000;
  const realNow = Date.now.bind(Date);
  const slowClaims: Store = {
    tableName: env.table.tableName,
    db: {
      send: async (command: { input: { UpdateExpression?: string } }) => {
        const answer = await env.table.db.send(command as never);
        if (command.input.UpdateExpression?.includes('attemptId = :attempt')) jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 2_000);
        return answer;
      },
    } as unknown as Store['db'],
  };
  const attempt = { dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 };
  const first = await deliverQueuedDispatch({ ...attempt, deadline: Date.now() + enough }, { providerFor: () => whatsapp.provider, store: slowClaims, queue: env.queues });
  jest.restoreAllMocks();
  expect(first).toMatchObject({ outcome: 'retry', cause: { code: 'no_time_to_send', reached: false } });
  expect(whatsapp.asked).toEqual([]);
  // Given back, uncounted: the claim is no longer held, and no "later" answer was spent.
  expect(await getDispatch(ws, dispatchId, env.table)).toMatchObject({ status: 'processing', attempts: 1 });
  expect((await getDispatch(ws, dispatchId, env.table))?.attemptStartedAt).toBeUndefined();

  // The message comes back with the function's time ahead of it.
  expect(await deliverQueuedDispatch({ ...attempt, receiveCount: 2, deadline: Date.now() + 28_000 }, { providerFor: () => whatsapp.provider, store: env.table, queue: env.queues })).toEqual({ outcome: 'sent' });
  expect({ asked: whatsapp.asked, status: (await getDispatch(ws, dispatchId, env.table))?.status }).toEqual({ asked: [dispatchId], status: 'sent' });
});
