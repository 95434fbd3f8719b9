import { randomUUID } from 'node:crypto';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { Provider } from '../../lambdas/domain/providers/provider';
import { statusWebhook } from '../../lambdas/domain/providers/whatsapp-webhook';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
afterEach(() => env.queues.receiveAll());

describe('Meta’s whole-second status times against our millisecond sentAt (decisions 22, 194, 202)', () => {
  // Meta's delivered and read both stamped 2026-01-01T00:01:00Z; our consumer recorded `sent` when
  // WhatsApp answered, by the Lambda's clock: in that same second, or in the one before.
  it.each([
    ['in the same second, so the delivered was clamped to it', '2026-01-01T00:01:00.600Z'],
    ['in the second before, so nothing was clamped', '2026-01-01T00:00:59.600Z'],
  ])('lets a read of the same second replace its delivered’s pricing, our sentAt %s', async (_, sentAt) => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    await saveTemplate(ws, template, env.table);
    const { dispatchId } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: [], now: new Date('2026-01-01T00:00:59.000Z') },
      { store: env.table, queue: env.queues },
    );
    const provider: Provider = { send: () => Promise.resolve({ providerMessageId: 'wamid.same-second' }), settle: () => Promise.resolve() };
    await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => provider, store: env.table, now: () => new Date(sentAt) });
    const report = (status: 'delivered' | 'read', type: string) =>
      applyProviderReports(
        statusWebhook(`sandbox:${ws}`, [
          { id: 'wamid.same-second', status, timestamp: '1767225660', biz_opaque_callback_data: dispatchId, pricing: { billable: type === 'regular', pricing_model: 'PMP', category: 'utility', type } },
        ]),
        env.table,
      );

    expect(await report('delivered', 'regular')).toMatchObject({ applied: 1 });
    expect(await report('read', 'free_customer_service')).toMatchObject({ applied: 1 });
    // The read is the latest status: "the same second still replaces it" (decision 194).
    expect((await getDispatch(ws, dispatchId, env.table))!.pricing).toMatchObject({ type: 'free_customer_service' });
  });
});
