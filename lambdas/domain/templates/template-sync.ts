import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import type { Store } from '../../shared/store';
import { issueLine } from '../../shared/zod-issues';
import { readMessageTemplates, type GraphTemplate, type TemplateListOptions } from '../providers/whatsapp-templates';
import type { TemplateCategory, WorkspaceSettings } from '../workspaces/workspace';
import { workspacesWithBusinessAccounts } from '../workspaces/workspace-binding';
import { getWorkspace } from '../workspaces/workspace-repository';
import { syncedContent, type SyncedContent } from './component-reading';
import { isTemplateCategory, sameReading, syncedTemplateId, syncedVersionId, templateStatusOf, versionStatusOf } from './synced-template';
import { keptVersions, SUPERSEDED, storableTemplateSchema, type Template, type TemplateVersion } from './template';
import { applyToTemplate, saveTemplateOverRead } from './template-repository';
import { outboxFor } from '../webhooks/event-gate';
import { templateStatusEvent } from '../webhooks/webhook-event';

/** A workspace cannot be synced: it does not exist, or names no WhatsApp Business Account. */
export class TemplateSyncError extends Error {
  override name = 'TemplateSyncError';
}

export type SyncChange = 'created' | 'new_version' | 'updated' | 'unchanged';

export interface TemplateSyncSummary {
  /** Templates Meta listed. */
  read: number;
  created: number;
  /** Templates whose content or category changed: a version was added. */
  newVersions: number;
  /** Templates whose status changed. */
  updated: number;
  unchanged: number;
  /** Templates we could not read or that have no body; logged with the reason. */
  skipped: number;
}

export interface TemplateSyncDependencies {
  graph: Omit<TemplateListOptions, 'businessAccountId' | 'accessToken'>;
  /** The stack's WhatsApp token (lambdas/domain/providers/whatsapp-credentials.ts). */
  accessToken: () => Promise<string>;
  store?: Store;
  now?: () => Date;
}

/**
 * Reads every template of the workspace's WhatsApp Business Account and upserts each one
 * (docs/api.md#templates-from-whatsapp): one template per name and language, its status Meta's,
 * a new version when Meta's content or category changed; earlier versions stay.
 */
export async function syncTemplates(workspaceId: string, deps: TemplateSyncDependencies): Promise<TemplateSyncSummary> {
  const store = deps.store ?? defaultStore();
  const now = deps.now ?? (() => new Date());
  const workspace = await getWorkspace(workspaceId, store);
  if (!workspace) throw new TemplateSyncError(`No workspace ${workspaceId}`);
  const businessAccountId = workspace.settings.whatsappBusinessAccountId;
  if (!businessAccountId) throw new TemplateSyncError(`Workspace ${workspaceId} has no whatsappBusinessAccountId setting`);

  const summary: TemplateSyncSummary = { read: 0, created: 0, newVersions: 0, updated: 0, unchanged: 0, skipped: 0 };
  // Before the first page is asked for: no page of the list says anything newer than this.
  const listedFrom = now();
  const pages = readMessageTemplates({ ...deps.graph, businessAccountId, accessToken: await deps.accessToken() });
  for await (const item of pages) {
    summary.read += 1;
    if ('unreadable' in item) {
      logger.warn('WhatsApp template unreadable; skipped', { workspaceId, issue: item.issue });
      summary.skipped += 1;
      continue;
    }
    const change = await upsertSyncedTemplate(workspaceId, { graph: item.template, readFrom: listedFrom }, workspace.settings.creditCostByCategory, now(), store);
    if (change === 'skipped') summary.skipped += 1;
    else if (change === 'new_version') summary.newVersions += 1;
    else summary[change] += 1;
  }
  logger.info('Templates synced', { workspaceId, ...summary });
  return summary;
}

/**
 * Meta's template merged into the stored one and saved (an outbox event when its status moved): the
 * sync's step, and an edit's. `readFrom` is when the Graph API was asked (at the latest): a status
 * or category a webhook applied since is newer than what Meta answered.
 */
export async function upsertSyncedTemplate(
  workspaceId: string,
  { graph, readFrom }: { graph: GraphTemplate; readFrom: Date },
  costs: WorkspaceSettings['creditCostByCategory'],
  now: Date,
  store: Store,
): Promise<SyncChange | 'skipped'> {
  const content = syncedContent(graph);
  const listedStatus = templateStatusOf(graph.status) ?? 'PENDING';
  if (!content || !isTemplateCategory(graph.category)) {
    logger.warn('WhatsApp template without a body or with an unknown category; skipped', { workspaceId, name: graph.name, language: graph.language, category: graph.category });
    return 'skipped';
  }
  const listed = { status: listedStatus, category: graph.category };
  const id = syncedTemplateId(workspaceId, graph.name, graph.language);
  return applyToTemplate(workspaceId, id, store, async (existing) => {
    // An edit read after this list was asked for: what the list says of the template is older. A
    // read time past our own clock was written by a clock ahead (an operator's machine): it
    // would freeze the template until ours caught up, so it holds nothing back.
    const contentReadAt = existing?.contentReadAt ? Date.parse(existing.contentReadAt) : undefined;
    if (contentReadAt !== undefined && contentReadAt > readFrom.getTime() && contentReadAt <= now.getTime() + MARK_READ_SKEW_MS) return 'unchanged';
    const { status, category } = newerOfReadAndMarks(existing, listed, readFrom);
    const merged = mergeSyncedTemplate(existing, { id, graph, status, category, content, creditCostPerSend: costs[category], contentReadAt: readFrom.toISOString() }, now);
    if (merged.change === 'unchanged') return merged.change;
    const statusMoved = existing !== undefined && existing.status !== merged.template.status;
    const outbox = statusMoved ? await outboxFor(workspaceId, () => templateStatusEvent(merged.template, existing.status, now), store) : undefined;
    // What Meta holds past a limit of ours: one such template must not stop a sync of every
    // template after it, nor fail its webhook.
    const storable = storableTemplateSchema.safeParse(merged.template);
    if (!storable.success) {
      logger.warn('WhatsApp template could not be stored; skipped', { workspaceId, name: graph.name, language: graph.language, issues: issueLine(storable.error, '(template)') });
      // Meta no longer holds the content stored before: sent, it would carry the wrong parameters,
      // so its versions are superseded and its sends answer 422 template_not_ready.
      if (existing?.versions.some((version) => version.status !== SUPERSEDED)) {
        const supersededAll = { ...existing, versions: existing.versions.map((version) => superseded(version, now.toISOString())) };
        if (!(await saveTemplateOverRead(workspaceId, supersededAll, existing, store))) return undefined;
      }
      return 'skipped';
    }
    if (!(await saveTemplateOverRead(workspaceId, merged.template, existing, store, { outbox }))) return undefined;
    const unsupported = content.unsupportedParts;
    if (unsupported && status === 'APPROVED') logger.info('WhatsApp template has parts a send cannot fill; its sends are refused', { workspaceId, name: graph.name, language: graph.language, parts: unsupported });
    return merged.change;
  });
}

/**
 * How far before the Graph API read a webhook's mark still counts as newer: Meta's times are whole
 * seconds on Meta's clock, and a mark that close may be a change the answer did not show yet.
 */
const MARK_READ_SKEW_MS = 60_000;

/**
 * The status and category to store: Meta's answer's, unless a webhook applied one Meta made after
 * that answer was asked for (its mark, Meta's time of the change, decision 188). The sync reads a
 * workspace's whole list before it saves each template, so a PAUSED, a reinstatement or a category
 * change landing in between would be put back for an hour; the marks' condition only covers the
 * milliseconds between the item's read and its save (decision 183).
 */
function newerOfReadAndMarks(existing: Template | undefined, read: { status: string; category: TemplateCategory }, readFrom: Date) {
  const newer = (mark: string | undefined) => mark !== undefined && Date.parse(mark) >= readFrom.getTime() - MARK_READ_SKEW_MS;
  return {
    status: existing && newer(existing.statusChangedAt) ? existing.status : read.status,
    category: existing?.category && newer(existing.categoryChangedAt) ? existing.category : read.category,
  };
}

export interface SyncedTemplateState {
  id: string;
  graph: Pick<GraphTemplate, 'id' | 'name' | 'language'>;
  status: string;
  category: TemplateCategory;
  content: SyncedContent;
  creditCostPerSend: number;
  /** When `content` was asked of the Graph API; absent, the template keeps the time it had (a category webhook's merge). */
  contentReadAt?: string;
}

/**
 * The stored template after Meta's current state: the version matching its content and category
 * takes its review's status, or a new version is added (numbered after the last). Pure, so the
 * sync and the webhooks share it.
 */
export function mergeSyncedTemplate(existing: Template | undefined, state: SyncedTemplateState, now: Date): { template: Template; change: SyncChange } {
  const at = now.toISOString();
  const versions = existing?.versions ?? [];
  const versionId = syncedVersionId(state.id, state.content.contentDigest, state.category);
  const versionStatus = versionStatusOf(state.status, state.content);
  const current = versions.find((version) => version.id === versionId);
  // The same content read again as this release reads it: a part it has learnt to fill gets its variables.
  const reread = current !== undefined && !sameReading(current, state.content);

  const next: TemplateVersion = current
    ? {
        ...withoutDisabledAt(reread ? { ...withoutReading(current), ...withoutDigest(state.content) } : current),
        status: versionStatus,
        ...(versionStatus === 'READY' && !current.readyAt ? { readyAt: at } : {}),
      }
    : {
        id: versionId,
        version: Math.max(0, ...versions.map((version) => version.version)) + 1,
        status: versionStatus,
        ...state.content,
        category: state.category,
        creditCostPerSend: state.creditCostPerSend,
        createdAt: at,
        ...(versionStatus === 'READY' ? { readyAt: at } : {}),
      };
  const contentReadAt = state.contentReadAt ?? existing?.contentReadAt;
  const template: Template = {
    id: state.id,
    displayName: `${state.graph.name} (${state.graph.language})`,
    status: state.status,
    providerName: state.graph.name,
    language: state.graph.language,
    providerTemplateId: state.graph.id,
    category: state.category,
    // Meta's state now, but not when it changed: the marks of the webhooks applied stay (decision 183).
    ...(existing?.statusChangedAt ? { statusChangedAt: existing.statusChangedAt } : {}),
    ...(existing?.categoryChangedAt ? { categoryChangedAt: existing.categoryChangedAt } : {}),
    ...(contentReadAt ? { contentReadAt } : {}),
    // Meta holds one content in one category: every other version is superseded (decision 146).
    versions: keptVersions([...versions.map((version) => (version.id === versionId ? next : superseded(version, at))), ...(current ? [] : [next])]),
  };
  const supersedes = versions.some((version) => version.id !== versionId && version.status !== SUPERSEDED);
  const change: SyncChange =
    !existing ? 'created' : !current ? 'new_version' : existing.status !== state.status || current.status !== next.status || reread || supersedes ? 'updated' : 'unchanged';
  return { template, change };
}

const superseded = (version: TemplateVersion, at: string): TemplateVersion => (version.status === SUPERSEDED ? version : { ...version, status: SUPERSEDED, disabledAt: at });
const withoutDisabledAt = ({ disabledAt: _d, ...version }: TemplateVersion): TemplateVersion => version;
const withoutReading = ({ variableDefinitions: _v, components: _c, unsupportedParts: _u, ...version }: TemplateVersion) => version;
const withoutDigest = ({ contentDigest: _d, ...reading }: SyncedContent) => reading;

/**
 * The deployed stack's scheduled sync: every workspace that names a WhatsApp Business Account.
 * One workspace failing (a refused token, an account Meta does not know) does not stop the
 * others; the run fails at the end, naming them, so the function's errors show it.
 */
export async function syncEveryWorkspace(deps: TemplateSyncDependencies): Promise<{ synced: number }> {
  const store = deps.store ?? defaultStore();
  const failed: string[] = [];
  const workspaceIds = await workspacesWithBusinessAccounts(store);
  for (const workspaceId of workspaceIds) {
    try {
      await syncTemplates(workspaceId, { ...deps, store });
    } catch (error) {
      logger.error('Template sync failed', { workspaceId, error: error as Error });
      failed.push(workspaceId);
    }
  }
  if (failed.length) throw new Error(`Template sync failed for ${failed.length} of ${workspaceIds.length} workspace(s): ${failed.join(', ')}`);
  return { synced: workspaceIds.length };
}
