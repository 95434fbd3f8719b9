import type * as z from '../../lambdas/shared/zod';
import type { DispatchMessage } from '../../lambdas/domain/messages/dispatch-queue';
import { signWebhookBody, statusWebhook, type WebhookStatus } from '../../lambdas/domain/providers/whatsapp-webhook';
import { templateInputSchema, type TemplateInput } from '../../lambdas/domain/templates/template';
import { storedTemplateItem } from '../../lambdas/domain/templates/template-repository';
import { workspaceInputSchema, type Workspace, type WorkspaceInput } from '../../lambdas/domain/workspaces/workspace';
import { bindingItem } from '../../lambdas/domain/workspaces/workspace-binding';
import { sendingNumberOf } from '../../lambdas/domain/workspaces/workspace-number';
import { storedWorkspaceItem } from '../../lambdas/domain/workspaces/workspace-repository';
import type { sendMessageAccepted, sendMessageBody } from '../../lambdas/handlers/send-message.schema';
import { config } from '../../lambdas/shared/config';
import { TEST_WORKSPACE_ID } from './api-key-item';

/** A send's request body (docs/api.md#send-a-message), as a test writes it. */
export type SendMessageRequest = z.input<typeof sendMessageBody>;
/** A send's 202 body. */
export type SendMessageAccepted = z.output<typeof sendMessageAccepted>;

/**
 * The stored workspace item, as the workspace repository writes it (its input schema's defaults
 * filled in: a sandbox workspace, 600 sends a minute, no dedupe): what a mocked GetCommand answers
 * for `keys.workspace(id)`. A send, the reports and the number-owner lookup read it.
 */
export function workspaceItem(workspace: Partial<WorkspaceInput> & { createdAt?: string; updatedAt?: string } = {}) {
  const { createdAt = '2026-01-01T00:00:00.000Z', updatedAt = createdAt, ...input } = workspace;
  return storedWorkspaceItem({ ...workspaceInputSchema.parse({ id: TEST_WORKSPACE_ID, name: 'Test', rupiahPerCredit: 150, ...input }), createdAt, updatedAt });
}

/**
 * The kit's template: approved, with one READY version, `Halo {{name}}, pesanan {{order}} sudah
 * dikirim.` (both variables required, 2 credits a send), the local demo seed's template.
 */
export const sampleTemplate = {
  id: '7b0c5c3e-0000-4000-8000-000000000001',
  displayName: 'Order shipped',
  status: 'APPROVED',
  providerName: 'order_shipped',
  language: 'id',
  versions: [
    {
      id: '7b0c5c3e-0000-4000-8000-0000000000a1',
      version: 1,
      status: 'READY',
      body: 'Halo {{name}}, pesanan {{order}} sudah dikirim.',
      variableDefinitions: [
        { name: 'name', type: 'text', required: true },
        { name: 'order', type: 'text', required: true },
      ],
      creditCostPerSend: 2,
      createdAt: '2026-01-05T03:00:00Z',
    },
  ],
} as const satisfies TemplateInput;

/**
 * The stored template item, as the template repository writes it: by default `sampleTemplate` in
 * the workspace `ws-test`. A send reads it by its `id`.
 */
export function templateItem(template: Partial<TemplateInput> & { workspaceId?: string } = {}) {
  const { workspaceId = TEST_WORKSPACE_ID, ...input } = template;
  return storedTemplateItem(workspaceId, templateInputSchema.parse({ ...sampleTemplate, ...input }));
}

/**
 * The item that says which workspace owns the WhatsApp number a workspace sends from (`WANUM#…`):
 * its `settings.whatsappPhoneNumberId`, or a sandbox workspace's own `sandbox:<id>`. A status
 * webhook applies only when the lookup of its `metadata.phone_number_id` answers this item;
 * without it the status is skipped (a WARN line, `unowned_number`) and the webhook still answers 200.
 */
export function numberOwnerItem(workspace: Pick<Workspace, 'id' | 'settings'> = workspaceItem()) {
  return bindingItem('whatsappPhoneNumberId', sendingNumber(workspace), workspace.id);
}

/** The `phone_number_id` WhatsApp names in the webhooks about the workspace's messages. */
export function sendingNumber(workspace: Pick<Workspace, 'id' | 'settings'>): string {
  const number = sendingNumberOf(workspace);
  if (!number) throw new Error(`Workspace ${workspace.id} sends from the stack's default number, which no workspace owns: give it settings.whatsappPhoneNumberId`);
  return number;
}

/**
 * The raw body WhatsApp posts to the webhook with these statuses of the workspace's messages (each
 * `{ id, status, timestamp, recipient_id?, biz_opaque_callback_data? }`; a dispatch is found by
 * `biz_opaque_callback_data`, its dispatchId, or by the wamid its send stored). Sign it with
 * `signWhatsAppBody`.
 */
export function whatsAppStatusBody(workspace: Pick<Workspace, 'id' | 'settings'>, statuses: WebhookStatus[]): string {
  return JSON.stringify(statusWebhook(sendingNumber(workspace), statuses));
}

/**
 * `X-Hub-Signature-256` for a raw webhook body, signed as WhatsApp signs it, with the app secret the
 * webhook reads (`WHATSAPP_APP_SECRET` unless given). Pass the same string as the event's body: a
 * signature holds for those bytes only, not for an object the kit serialises.
 */
export function signWhatsAppBody(rawBody: string, appSecret: string | undefined = config.WHATSAPP_APP_SECRET): string {
  if (!appSecret) throw new Error('WHATSAPP_APP_SECRET is not set: set it before importing the kit, or pass the app secret');
  return signWebhookBody(rawBody, appSecret);
}

/** The dispatch queue's message body, as a send enqueues it: what `sqsEvent` hands the deliver consumer. */
export function dispatchMessage(dispatchId: string, workspaceId = TEST_WORKSPACE_ID): DispatchMessage {
  return { dispatchId, workspaceId };
}

/**
 * A mocked GetCommand's answer from these items, each found by its key (`pk`, `sk`); any other key
 * answers no item, as a table without it would. `ddb.on(GetCommand).callsFake(itemsByKey([...]))`:
 * unlike one blanket `resolves`, the API key's item does not also answer the template's lookup.
 */
export function itemsByKey(items: readonly { pk: string; sk: string }[]) {
  const byKey = new Map(items.map((item) => [`${item.pk}\n${item.sk}`, item]));
  return (input: { Key?: Record<string, unknown> }) => ({ Item: byKey.get(`${String(input.Key?.pk)}\n${String(input.Key?.sk)}`) });
}
