import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import type { Store } from '../../shared/store';
import { issueLine } from '../../shared/zod-issues';
import { graphTemplateRefSchema, readMessageTemplates, type GraphTemplate, type TemplateListOptions } from '../providers/whatsapp-templates';
import type { TemplateCategory, WorkspaceSettings } from '../workspaces/workspace';
import { workspacesWithBusinessAccounts } from '../workspaces/workspace-binding';
import { getWorkspace } from '../workspaces/workspace-repository';
import { syncedContent, type SyncedContent } from './component-reading';
import { DELETED, isTemplateCategory, sameReading, syncedTemplateId, syncedVersionId, templateStatusOf, versionStatusOf } from './synced-template';
import { keptVersions, SUPERSEDED, storableTemplateSchema, type Template, type TemplateVersion } from './template';
import { applyToTemplate, listTemplates, saveTemplateOverRead } from './template-repository';
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
  /** Synced templates Meta no longer listed (deleted at Meta): now DELETED. */
  deleted: number;
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
 * a new version when Meta's content or category changed; earlier versions stay. Once the whole
 * list is read, a synced template it does not have is DELETED (decision 199).
 */
export async function syncTemplates(workspaceId: string, deps: TemplateSyncDependencies): Promise<TemplateSyncSummary> {
  const store = deps.store ?? defaultStore();
  const now = deps.now ?? (() => new Date());
  const workspace = await getWorkspace(workspaceId, store);
  if (!workspace) throw new TemplateSyncError(`No workspace ${workspaceId}`);
  const businessAccountId = workspace.settings.whatsappBusinessAccountId;
  if (!businessAccountId) throw new TemplateSyncError(`Workspace ${workspaceId} has no whatsappBusinessAccountId setting`);

  const summary: TemplateSyncSummary = { read: 0, created: 0, newVersions: 0, updated: 0, unchanged: 0, skipped: 0, deleted: 0 };
  // Before the first page is asked for: no page of the list says anything newer than this.
  const listedFrom = now();
  // The ids of the templates Meta listed, skipped ones too: they are still Meta's. Unknown once an item names none.
  let listed: Set<string> | undefined = new Set();
  const pages = readMessageTemplates({ ...deps.graph, businessAccountId, accessToken: await deps.accessToken() });
  for await (const item of pages) {
    summary.read += 1;
    if ('unreadable' in item) {
      logger.warn('WhatsApp template unreadable; skipped', { workspaceId, issue: item.issue });
      summary.skipped += 1;
      const ref = graphTemplateRefSchema.safeParse(item.unreadable);
      if (ref.success) listed?.add(syncedTemplateId(workspaceId, ref.data.name, ref.data.language));
      else listed = undefined;
      continue;
    }
    listed?.add(syncedTemplateId(workspaceId, item.template.name, item.template.language));
    const change = await upsertSyncedTemplate(workspaceId, { graph: item.template, readFrom: listedFrom }, workspace.settings.creditCostByCategory, now(), store);
    if (change === 'skipped') summary.skipped += 1;
    else if (change === 'new_version') summary.newVersions += 1;
    else summary[change] += 1;
  }
  // Here only when every page was read: a page that failed threw, and nothing is retired. A list
  // with nothing in it is more likely an account or token that sees no template than every one
  // deleted at once, and taken as the truth it would stop every send of the workspace.
  if (listed?.size) summary.deleted = await retireUnlisted(workspaceId, listed, listedFrom, now, store);
  else if (listed) logger.warn('WhatsApp listed no template; none is marked DELETED this run', { workspaceId });
  else logger.warn('WhatsApp listed a template without a name or language; no template is marked DELETED this run', { workspaceId });
  logger.info('Templates synced', { workspaceId, ...summary });
  return summary;
}

/**
 * Marks DELETED each template of the workspace that Meta's whole list (`listed`, asked for at
 * `listedFrom`) does not have and `retiredTemplate` lets go, with its status event: Meta lists a
 * template until it is deleted, and its status webhook for a deletion does not always come.
 */
async function retireUnlisted(workspaceId: string, listed: ReadonlySet<string>, listedFrom: Date, now: () => Date, store: Store): Promise<number> {
  let deleted = 0;
  for (const stored of await listTemplates(workspaceId, store)) {
    if (listed.has(stored.id) || !retiredTemplate(workspaceId, stored, listedFrom, now())) continue;
    const retired = await applyToTemplate(workspaceId, stored.id, store, async (existing) => {
      const at = now();
      const template = existing && retiredTemplate(workspaceId, existing, listedFrom, at);
      if (!existing || !template) return false;
      const outbox = await outboxFor(workspaceId, () => templateStatusEvent(template, existing.status, at), store);
      if (!(await saveTemplateOverRead(workspaceId, template, existing, store, { outbox }))) return undefined;
      logger.info('WhatsApp template no longer listed; marked DELETED', { workspaceId, templateId: template.id, name: template.providerName, language: template.language, previousStatus: existing.status });
      return true;
    });
    if (retired) deleted += 1;
  }
  return deleted;
}

/**
 * The stored template once a whole list of Meta's read from `readFrom` did not have it: DELETED,
 * marked as changed at `readFrom` (Meta deleted it before), so a status webhook of Meta's from
 * before, delivered again late, is stale (decision 183). None when it stays as it is: a template
 * of ours, not Meta's (imported or seeded: not the id a sync gives its name and language, or
 * without Meta's id); one already DELETED; one a webhook changed or read after the list was asked
 * for, as one approved while the list was read, which the list may not have.
 */
export function retiredTemplate(workspaceId: string, existing: Template, readFrom: Date, now: Date): Template | undefined {
  const synced = existing.providerTemplateId !== undefined && existing.id === syncedTemplateId(workspaceId, existing.providerName, existing.language);
  const newer = contentReadSince(existing, readFrom, now) || markedSince(existing.statusChangedAt, readFrom, now) || markedSince(existing.categoryChangedAt, readFrom, now);
  if (!synced || existing.status === DELETED || newer) return undefined;
  return { ...existing, status: DELETED, statusChangedAt: readFrom.toISOString() };
}

/**
 * Meta's template merged into the stored one and saved (an outbox event when its status moved): the
 * sync's step, and an edit's. `readFrom` is when the Graph API was asked (at the latest): a status
 * or category a webhook applied since is newer than what Meta answered.
 */
export async function upsertSyncedTemplate(
  workspaceId: string,
  { graph, readFrom, statusChangedAt }: { graph: GraphTemplate; readFrom: Date; statusChangedAt?: string },
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
    // An edit read after this list was asked for: what the list says of the template is older.
    if (existing && contentReadSince(existing, readFrom, now)) return 'unchanged';
    const { status, category } = newerOfReadAndMarks(existing, listed, readFrom, now);
    const merged = mergeSyncedTemplate(existing, { id, graph, status, category, content, creditCostPerSend: costs[category], contentReadAt: readFrom.toISOString(), ...(statusChangedAt ? { statusChangedAt } : {}) }, now);
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
 * Whether a time stored on a template (a read time, or a mark a read wrote) is past our clock, plus
 * the skew: written by a clock ahead (an operator's machine), it would keep Meta's list off the
 * template until ours caught up, so it holds nothing back, and the save writes a sane one.
 */
const writtenAhead = (time: string, now: Date) => Date.parse(time) > now.getTime() + MARK_READ_SKEW_MS;

/** Whether a webhook's mark (Meta's time of a change) is news the Graph API read from `readFrom` may not show. */
const markedSince = (mark: string | undefined, readFrom: Date, now: Date) => mark !== undefined && Date.parse(mark) >= readFrom.getTime() - MARK_READ_SKEW_MS && !writtenAhead(mark, now);

/** Whether the template's content was read from the Graph API after `readFrom` (both our clock). */
function contentReadSince(existing: Template, readFrom: Date, now: Date): boolean {
  const { contentReadAt } = existing;
  return contentReadAt !== undefined && Date.parse(contentReadAt) > readFrom.getTime() && !writtenAhead(contentReadAt, now);
}

/**
 * The status and category to store: Meta's answer's, unless a webhook applied one Meta made after
 * that answer was asked for (its mark, Meta's time of the change, decision 188). The sync reads a
 * workspace's whole list before it saves each template, so a PAUSED, a reinstatement or a category
 * change landing in between would be put back for an hour; the marks' condition only covers the
 * milliseconds between the item's read and its save (decision 183).
 */
function newerOfReadAndMarks(existing: Template | undefined, read: { status: string; category: TemplateCategory }, readFrom: Date, now: Date) {
  return {
    status: existing && markedSince(existing.statusChangedAt, readFrom, now) ? existing.status : read.status,
    category: existing?.category && markedSince(existing.categoryChangedAt, readFrom, now) ? existing.category : read.category,
  };
}

export interface SyncedTemplateState {
  id: string;
  graph: Pick<GraphTemplate, 'id' | 'name' | 'language'>;
  status: string;
  category: TemplateCategory;
  content: SyncedContent;
  creditCostPerSend: number;
  /**
   * When `content`, status and category were asked of the Graph API; absent, the template keeps the
   * time it had, and its marks (a category webhook's merge, which marks its own change).
   */
  contentReadAt?: string;
  /** Meta's time of the status change whose webhook asked for the read (an approval's): its mark, when later than the read's. */
  statusChangedAt?: string;
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
  const statusChangedAt = markAfterRead(existing?.statusChangedAt, existing?.status !== state.status, state.contentReadAt, state.statusChangedAt);
  const categoryChangedAt = markAfterRead(existing?.categoryChangedAt, existing?.category !== state.category, state.contentReadAt);
  const template: Template = {
    id: state.id,
    displayName: `${state.graph.name} (${state.graph.language})`,
    status: state.status,
    providerName: state.graph.name,
    language: state.graph.language,
    providerTemplateId: state.graph.id,
    category: state.category,
    ...(statusChangedAt ? { statusChangedAt } : {}),
    ...(categoryChangedAt ? { categoryChangedAt } : {}),
    ...(contentReadAt ? { contentReadAt } : {}),
    // Meta holds one content in one category: every other version is superseded (decision 146).
    versions: keptVersions([...versions.map((version) => (version.id === versionId ? next : superseded(version, at))), ...(current ? [] : [next])]),
  };
  const supersedes = versions.some((version) => version.id !== versionId && version.status !== SUPERSEDED);
  const change: SyncChange =
    !existing ? 'created' : !current ? 'new_version' : existing.status !== state.status || current.status !== next.status || reread || supersedes ? 'updated' : 'unchanged';
  return { template, change };
}

/**
 * A mark of the template Meta's state was merged into. Meta's list says what it holds, not when it
 * changed, so the mark of the webhook that applied a status or category stays (decision 183). One the
 * Graph API read at `readAt` set (a new template's too; the read only sets one whose mark is older
 * than it) is marked that read, less the skew: a webhook of an earlier change, delivered late, is
 * then stale rather than putting back what the read replaced, and one of a change Meta made after
 * the read, or in the minute before it, still applies (decision 201). A read an approval's webhook
 * asked for marks the approval's own time when that is later: a list asked for in the minute after
 * it may not have the template yet, and must not retire it (decision 199).
 */
function markAfterRead(mark: string | undefined, moved: boolean, readAt: string | undefined, changedAt?: string): string | undefined {
  if (!moved || !readAt) return mark;
  const read = Date.parse(readAt) - MARK_READ_SKEW_MS;
  return new Date(changedAt && Date.parse(changedAt) > read ? Date.parse(changedAt) : read).toISOString();
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
