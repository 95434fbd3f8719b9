import { randomUUID } from 'node:crypto';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import type { QueueTarget } from '../../lambdas/shared/queue';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import type { Provider } from '../../lambdas/domain/providers/provider';
import type { Template } from '../../lambdas/domain/templates/template';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import { template, TEMPLATE_ID } from './send-fixtures';
import { runReportProjection } from './stream-consumer';

/** A provider that takes every message, answering with a wamid made of the dispatch id. */
export const acceptingProvider: Provider = { send: (m) => Promise.resolve({ providerMessageId: `wamid.${m.dispatchId}` }), settle: () => Promise.resolve() };

/** A workspace of its own (150 rupiah a credit) with the send fixtures' template and any `more`, so a test's reports count only its sends. */
export async function freshWorkspace(store: Store, more: Template[] = []): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), store);
  for (const saved of [template, ...more]) await saveTemplate(ws, saved, store);
  return ws;
}

/**
 * A dispatch of the send fixtures' template created `at` with `tags`, sent, and counted by the
 * report projection (decision 113); with `projected: false`, its change still waits for the projection.
 */
export async function sentDispatch(env: { table: Store; queues: QueueTarget }, ws: string, at: string, tags: string[], { projected = true } = {}): Promise<string> {
  const { dispatchId } = await sendTemplateMessage(
    { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567890', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: tags, now: new Date(at) },
    { store: env.table, queue: env.queues },
  );
  await deliverDispatch({ dispatchId, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table });
  if (projected) await runReportProjection(env.table);
  return dispatchId;
}
