import type { Store } from '../../shared/store';
import { isListable, toTemplateResource, type TemplateResource } from './template';
import { listTemplates } from './template-repository';

/** The workspace's APPROVED templates in the contract's shape. */
export async function listApprovedTemplates(workspaceId: string, store?: Store): Promise<TemplateResource[]> {
  const templates = await listTemplates(workspaceId, store);
  return templates.filter(isListable).map(toTemplateResource);
}
