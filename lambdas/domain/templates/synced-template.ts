import { uuidV5 } from '../../shared/stable-id';
import { templateCategories, type TemplateCategory } from '../workspaces/workspace';
import { digest, type SyncedContent } from './component-reading';
import type { TemplateVersion } from './template';

/**
 * A WhatsApp template as ours (docs/api.md#templates-from-whatsapp): its stable ids and our
 * statuses. What a version is made of is read in component-reading.ts.
 */

/** The namespace of synced templates' name-based ids. */
const SYNCED_TEMPLATE_NAMESPACE = '3c1f7a52-8d4e-4b1a-9f0e-6a2d5c7b8e91';

/** One template per workspace, name and language, whatever the sync or webhook that first sees it. */
export const syncedTemplateId = (workspaceId: string, name: string, language: string) => uuidV5(`${workspaceId}/${name}/${language}`, SYNCED_TEMPLATE_NAMESPACE);

/** One version per template, content and category: syncing unchanged content again finds it. */
export const syncedVersionId = (templateId: string, contentDigest: string, category: TemplateCategory) => uuidV5(`${templateId}/${contentDigest}/${category}`, SYNCED_TEMPLATE_NAMESPACE);

/** Deleted at Meta: its webhook said so, or a sync's whole list no longer had it (decision 199). Never listed or sent. */
export const DELETED = 'DELETED';

/**
 * Meta's template statuses (and webhook events) as ours. Only APPROVED is sendable; PAUSED and
 * DISABLED answer a send 422 template_not_ready. `undefined`: the event says nothing about
 * whether the template can be sent (FLAGGED, LOCKED, …), so the status stays.
 */
export function templateStatusOf(metaStatus: string): string | undefined {
  switch (metaStatus) {
    case 'APPROVED':
    case 'REINSTATED':
    case 'UNARCHIVED':
      return 'APPROVED';
    case 'PENDING':
    case 'IN_APPEAL':
      return 'PENDING';
    case 'REJECTED':
      return 'REJECTED';
    case 'PAUSED':
      return 'PAUSED';
    case 'DISABLED':
      return 'DISABLED';
    case 'PENDING_DELETION':
    case 'DELETED':
      return DELETED;
    case 'ARCHIVED':
      return 'ARCHIVED';
    default:
      return undefined;
  }
}

/**
 * A version's status for the content Meta holds now: its review's outcome, and UNSUPPORTED for
 * approved content with parts a send cannot fill (decision 143).
 */
export function versionStatusOf(templateStatus: string, content: Pick<TemplateVersion, 'unsupportedParts'>): string {
  if (templateStatus === 'PENDING' || templateStatus === 'REJECTED') return templateStatus;
  return content.unsupportedParts?.length ? 'UNSUPPORTED' : 'READY';
}

/** Whether two readings of the same Meta content give the same variables and parts (key order aside). */
export const sameReading = (a: Omit<SyncedContent, 'contentDigest'>, b: Omit<SyncedContent, 'contentDigest'>): boolean =>
  digest(readingOf(a)) === digest(readingOf(b));
const readingOf = ({ variableDefinitions, components, unsupportedParts }: Omit<SyncedContent, 'contentDigest'>) => ({ variableDefinitions, components, unsupportedParts });

export const isTemplateCategory = (value: string): value is TemplateCategory => (templateCategories as readonly string[]).includes(value);
