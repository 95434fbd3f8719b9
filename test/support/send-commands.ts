import { randomUUID } from 'node:crypto';
import type { SendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import { template, TEMPLATE_ID } from './send-fixtures';

/** A sandbox workspace of the test's own on the table, with the fixture template: its send rate and dedupe as given. */
export async function sendingWorkspace(store: Store, settings: { sendsPerMinute?: number; dedupe?: 'none' | 'wib-day' } = {}): Promise<string> {
  const id = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id, name: id, rupiahPerCredit: 150, settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox', ...settings } }, new Date(), store);
  await saveTemplate(id, template, store);
  return id;
}

/** The send of the fixture template to one number, as the handler hands it to the domain. */
export const sendCommand = (workspaceId: string, overrides: Partial<SendTemplateMessage> = {}): SendTemplateMessage => ({
  workspaceId,
  apiClient: { id: randomUUID(), name: 'backend' },
  to: '081234567890',
  templateId: TEMPLATE_ID,
  variables: { name: 'Budi', order: 'A-1' },
  tagIds: [],
  trackingTags: [],
  now: new Date(),
  ...overrides,
});
