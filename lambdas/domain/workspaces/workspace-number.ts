import type { Store } from '../../shared/store';
import type { Write } from '../../shared/writes';
import type { Workspace, WorkspaceSettings } from './workspace';
import { bindingItem, workspaceBoundTo } from './workspace-binding';

/** The workspace that owns a WhatsApp business phone number (`phone_number_id`), if one does. */
export const workspaceOfNumber = (phoneNumberId: string, store: Store): Promise<string | undefined> => workspaceBoundTo('whatsappPhoneNumberId', phoneNumberId, store);

/**
 * The business number a workspace sends from, as webhooks name it (`metadata.phone_number_id`):
 * its own, or, for a sandbox workspace without one, a number id of its own that no real number can
 * have (real ids are digits, configured ones match /^[A-Za-z0-9_-]+$/), registered with the
 * workspace like a real one. So the sandbox reports as the workspace's number, and statuses apply
 * only to the workspace that owns the number they came to, in the sandbox as on WhatsApp. A
 * WhatsApp workspace without a number sends from the stack's default one, which no workspace owns.
 */
export function sendingNumberOf(workspace: Pick<Workspace, 'id' | 'settings'>): string | undefined {
  if (workspace.settings.whatsappPhoneNumberId) return workspace.settings.whatsappPhoneNumberId;
  return workspace.settings.provider === 'sandbox' ? `sandbox:${workspace.id}` : undefined;
}

/**
 * Registers a sandbox workspace's own number id (see `sendingNumberOf`). It names its workspace, so
 * no other workspace can claim it; a configured number is bound through workspace-binding.ts.
 */
export function sandboxNumberPut(workspaceId: string, settings: Partial<Pick<WorkspaceSettings, 'whatsappPhoneNumberId' | 'provider'>>): Write | undefined {
  if (settings.whatsappPhoneNumberId || settings.provider !== 'sandbox') return undefined;
  return { Put: { Item: bindingItem('whatsappPhoneNumberId', `sandbox:${workspaceId}`, workspaceId) } };
}
