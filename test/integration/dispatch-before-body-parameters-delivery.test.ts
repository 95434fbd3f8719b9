import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { ProviderError, type Provider } from '../../lambdas/domain/providers/provider';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../lambdas/shared/table';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();

/**
 * The first release that sent (9be42c4, 31d00fc, c87ecb3; decision 186 and
 * dispatch-before-body-parameters.test.ts read its items too) stored a dispatch's unset fields as
 * DynamoDB NULLs, and had no deliver consumer: its dispatches waited `queued`, their messages on the
 * queue (kept 4 days), for the release that delivers them. That release's first `sent` move held
 * to `attribute_not_exists(sentAt)`, which a NULL fails: the message went out and the dispatch
 * stayed `processing`, every report of it refused.
 */
async function oldQueuedDispatch() {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const dispatchId = randomUUID();
    const createdAt = new Date(Date.now() - 60_000).toISOString();
    const to = '+6281234567890';
    const version = template.versions[0]!;
    // The item exactly as 9be42c4's dispatchItem wrote it (its Dispatch interface, nulls included).
    await env.table.db.send(
      new PutCommand({
        TableName: env.table.tableName,
        Item: {
          ...keys.dispatch(dispatchId),
          gsi1pk: `WS#${ws}#P#${to}#T#${TEMPLATE_ID}`,
          gsi1sk: createdAt,
          entity: 'dispatch',
          dispatchId,
          workspaceId: ws,
          channel: 'whatsapp',
          to,
          contactName: null,
          templateId: TEMPLATE_ID,
          templateName: template.displayName,
          templateVersionId: version.id,
          providerTemplateName: template.providerName,
          language: template.language,
          variables: { name: 'Budi', order: 'A-1' },
          renderedText: 'Halo Budi, pesanan A-1 sudah dikirim.',
          tagIds: [],
          trackingTags: [],
          source: 'EXTERNAL_API',
          apiClient: { id: randomUUID(), name: 'k' },
          status: 'queued',
          creditCost: version.creditCostPerSend,
          amountRupiah: version.creditCostPerSend * 150,
          conversationId: randomUUID(),
          createdAt,
          updatedAt: createdAt,
          sentAt: null,
          deliveredAt: null,
          failureCode: null,
        },
      }),
    );
    return { ws, dispatchId };
}

/** A provider that takes every message, noting each call. */
const acceptingProvider = (calls: string[]): Provider => ({
  send: (message) => {
    calls.push(message.dispatchId);
    return Promise.resolve({ providerMessageId: `wamid.${randomUUID()}` });
  },
  settle: () => Promise.resolve(),
});

describe('upgrade: a queued dispatch written by the first release that sent (9be42c4), delivered now', () => {
  it('is delivered and recorded sent', async () => {
    const { ws, dispatchId } = await oldQueuedDispatch();
    const calls: string[] = [];
    const provider = acceptingProvider(calls);

    const verdict = await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table });

    const stored = await getDispatch(ws, dispatchId, env.table);
    expect({ verdict, calls: calls.length, status: stored?.status, sentAt: typeof stored?.sentAt }).toEqual({ verdict: 'sent', calls: 1, status: 'sent', sentAt: 'string' });
  });

  it('takes WhatsApp’s delivered report of it once sent', async () => {
    const { ws, dispatchId } = await oldQueuedDispatch();
    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider([]), store: env.table });
    await applyProviderReports(statusWebhook(`sandbox:${ws}`, [{ id: `wamid.${randomUUID()}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), biz_opaque_callback_data: dispatchId }]), env.table);
    const stored = await getDispatch(ws, dispatchId, env.table);
    expect({ status: stored?.status, sentAt: typeof stored?.sentAt }).toEqual({ status: 'delivered', sentAt: 'string' });
  });

  // Decision 186: "one that is still queued and is delivered now goes to WhatsApp without
  // parameters, which refuses a template that has some (132000) and the dispatch fails."
  it('fails when WhatsApp refuses it (132000), as decision 186 says', async () => {
    const { ws, dispatchId } = await oldQueuedDispatch();
    const refusing: Provider = { send: () => Promise.reject(new ProviderError('permanent', '132000', 'Number of parameters does not match')), settle: () => Promise.resolve() };
    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => refusing, store: env.table });
    const stored = await getDispatch(ws, dispatchId, env.table);
    expect({ status: stored?.status, failureCode: stored?.failureCode }).toEqual({ status: 'failed', failureCode: '132000' });
  });
});
