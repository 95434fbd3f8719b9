import { clearApiKeyCache } from '../../lambdas/domain/api-keys/authenticate';
import { clearSendAllowanceLeases } from '../../lambdas/domain/messages/send-rate';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';

/** A fresh container: forgets every per-container cache and lease, as a cold start would. */
export function coldStart(): void {
  clearApiKeyCache();
  clearTemplateCache();
  clearWorkspaceCache();
  clearSendAllowanceLeases();
}
