import { randomUUID } from 'node:crypto';
import type { Provider } from '../../lambdas/domain/providers/provider';
import type { Template } from '../../lambdas/domain/templates/template';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import { template } from './send-fixtures';

/** A provider that takes every message, answering with a wamid made of the dispatch id. */
export const acceptingProvider: Provider = { send: (m) => Promise.resolve({ providerMessageId: `wamid.${m.dispatchId}` }), settle: () => Promise.resolve() };

/** A workspace of its own (150 rupiah a credit) with the send fixtures' template and any `more`, so a test's reports count only its sends. */
export async function freshWorkspace(store: Store, more: Template[] = []): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), store);
  for (const saved of [template, ...more]) await saveTemplate(ws, saved, store);
  return ws;
}
