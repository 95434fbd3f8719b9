import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { logger } from '../../shared/logger';
import type { Store } from '../../shared/store';
import { workspaceOfBusinessAccount } from '../workspaces/workspace-binding';
import { getWorkspace } from '../workspaces/workspace-repository';
import { isTemplateCategory, syncedTemplateId, templateStatusOf, versionStatusOf } from './synced-template';
import { currentVersion, type Template, type TemplateVersion } from './template';
import { mergeSyncedTemplate, upsertSyncedTemplate } from './template-sync';
import { config } from '../../shared/config';
import { readMessageTemplate, type GraphTemplate } from '../providers/whatsapp-templates';
import { graphCredentials } from '../providers/whatsapp-credentials';
import { applyToTemplate, saveTemplateOverRead } from './template-repository';
import { outboxFor } from '../webhooks/event-gate';
import { templateStatusEvent } from '../webhooks/webhook-event';
import { issueTexts } from '../../shared/zod-issues';

/** The WhatsApp Business Account webhook fields about templates (docs/api.md#templates-from-whatsapp). */
export const templateWebhookFields = ['message_template_status_update', 'template_category_update', 'message_template_components_update'] as const;
export type TemplateWebhookField = (typeof templateWebhookFields)[number];
export const isTemplateWebhookField = (field: string): field is TemplateWebhookField => (templateWebhookFields as readonly string[]).includes(field);

/** Meta's template id, a number in its webhooks. */
const metaTemplateId = z.union([z.string().check(z.minLength(1)), z.int()]);
const templateRef = {
  message_template_name: z.string().check(z.minLength(1)),
  message_template_language: z.string().check(z.minLength(1)),
};
const statusUpdateSchema = z.object({ ...templateRef, message_template_id: z.optional(metaTemplateId), event: z.string(), reason: z.nullish(z.string()) });
const categoryUpdateSchema = z.object({ ...templateRef, message_template_id: z.optional(metaTemplateId), new_category: z.string(), previous_category: z.optional(z.string()) });
/** An edit: Meta names the template and quotes some of its new text; its whole content is read from the Graph API. */
const componentsUpdateSchema = z.object({ ...templateRef, message_template_id: metaTemplateId });
const schemaOf = { message_template_status_update: statusUpdateSchema, template_category_update: categoryUpdateSchema, message_template_components_update: componentsUpdateSchema };

/** One template as the Graph API has it now, by Meta's id. */
export type TemplateReader = (templateId: string) => Promise<GraphTemplate>;
const readFromGraph: TemplateReader = async (templateId) =>
  readMessageTemplate({ baseUrl: config.GRAPH_API_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS, accessToken: (await graphCredentials()).accessToken }, templateId);

export type TemplateWebhookOutcome = 'applied' | 'unchanged' | 'stale' | 'ignored' | 'unknown_account' | 'unknown_template' | 'unreadable' | 'not_read';

/**
 * Applies one template change of a WhatsApp Business Account webhook at once: a status event
 * moves the template's status (APPROVED, PAUSED, DISABLED, …); a completed category change adds a
 * version charging the new category's cost; an edit reads the template from the Graph API as a
 * sync would (decision 147), and so does the approval of a template other than the one stored
 * (decision 216). Any other change of a template no sync has seen waits for the next sync, which
 * reads its content; an announced (not yet made) category change changes nothing. `time` is its entry's
 * (Unix seconds): a status or category change older than the last one applied is stale (decision
 * 183), and so is one older than the Graph API read that last set it (decision 201).
 */
export async function applyTemplateWebhook(
  businessAccountId: string,
  change: { field: TemplateWebhookField; value: unknown; time?: number },
  store: Store = defaultStore(),
  now: Date = new Date(),
  readTemplate: TemplateReader = readFromGraph,
): Promise<TemplateWebhookOutcome> {
  const workspaceId = await workspaceOfBusinessAccount(businessAccountId, store);
  if (!workspaceId) {
    logger.warn('Template webhook for an account no workspace owns', { businessAccountId, field: change.field });
    return 'unknown_account';
  }
  const parsed = schemaOf[change.field].safeParse(change.value);
  if (!parsed.success) {
    logger.warn('Template webhook unreadable; skipped', { workspaceId, field: change.field, issues: issueTexts(parsed.error) });
    return 'unreadable';
  }
  const { message_template_name: name, message_template_language: language } = parsed.data;
  const changedAt = change.time === undefined ? undefined : new Date(change.time * 1000).toISOString();
  return applyToTemplate(workspaceId, syncedTemplateId(workspaceId, name, language), store, async (template) => {
    // An edit is read whole; so is a template approved that is not the one stored: none stored
    // (approved before any sync saw it), or the stored one deleted and its name submitted again
    // under a new Meta id. Either would otherwise wait up to an hour to be sendable with its own
    // content (decisions 147, 216).
    const edited = change.field === 'message_template_components_update';
    const webhookId = parsed.data.message_template_id === undefined ? undefined : String(parsed.data.message_template_id);
    const another = !template || template.status === 'DELETED' || (webhookId !== undefined && template.providerTemplateId !== undefined && webhookId !== template.providerTemplateId);
    const newlyApproved = another && 'event' in parsed.data && templateStatusOf(parsed.data.event) === 'APPROVED';
    // A live template stored under another Meta id, its status changed after this approval: the
    // approval is an earlier template's (one deleted and made again), delivered late or again by
    // Meta (decision 183). Read now, it would put the deleted template back over the live one.
    if (newlyApproved && template && template.status !== 'DELETED' && olderThan(changedAt, template.statusChangedAt)) {
      logger.info('Template webhook older than the change the template has; skipped', { workspaceId, templateId: template.id, field: change.field, changedAt, statusChangedAt: template.statusChangedAt });
      return 'stale';
    }
    const metaId = newlyApproved ? (webhookId ?? template?.providerTemplateId) : (template?.providerTemplateId ?? webhookId);
    if ((edited || newlyApproved) && metaId) return readTemplateFromGraph(workspaceId, metaId, readTemplate, store, now, newlyApproved ? changedAt : undefined);
    if (!template) {
      logger.info('Template webhook for a template not synced yet; the next sync reads it', { workspaceId, name, language, field: change.field });
      return 'unknown_template';
    }
    return applyChange(workspaceId, template, change.field, parsed.data, changedAt, store, now);
  });
}

/** Whether a change at `changedAt` is older than a template's mark; times, not strings: a mark an import wrote may carry an offset. */
const olderThan = (changedAt: string | undefined, mark: string | undefined): boolean => changedAt !== undefined && mark !== undefined && Date.parse(changedAt) < Date.parse(mark);

/**
 * A status or category change saved on the template, with its time as the template's mark of that
 * change. Meta re-delivers a webhook it got no 200 for, for days, so an older change may come after
 * a newer one: one older than the mark changes nothing. Undefined when another webhook moved a mark
 * since the template was read: the template is read again.
 */
async function applyChange(
  workspaceId: string,
  template: Template,
  field: TemplateWebhookField,
  update: z.infer<(typeof schemaOf)[TemplateWebhookField]>,
  changedAt: string | undefined,
  store: Store,
  now: Date,
): Promise<TemplateWebhookOutcome | undefined> {
  const updated = 'event' in update ? withStatus(template, update.event, now) : 'new_category' in update ? await withCategory(template, update, workspaceId, store, now) : undefined;
  if (!updated) return 'ignored';
  const mark = 'event' in update ? 'statusChangedAt' : 'categoryChangedAt';
  const last = template[mark];
  if (olderThan(changedAt, last)) {
    logger.info('Template webhook older than the change the template has; skipped', { workspaceId, templateId: template.id, field, changedAt, [mark]: last });
    return 'stale';
  }
  const marked = changedAt && changedAt !== last ? { ...updated, [mark]: changedAt } : updated;
  if (JSON.stringify(marked) === JSON.stringify(template)) return 'unchanged';
  const outbox = marked.status !== template.status ? await outboxFor(workspaceId, () => templateStatusEvent(marked, template.status, now), store) : undefined;
  if (!(await saveTemplateOverRead(workspaceId, marked, template, store, { outbox }))) return undefined;
  logger.info('Template webhook applied', { workspaceId, templateId: template.id, field, status: marked.status, category: marked.category });
  return 'applied';
}

/**
 * A template read from the Graph API and merged as a sync merges it: an edit (a new version for
 * new content, the others superseded), or one approved before any sync saw it. Until then sends
 * would give WhatsApp the old content's values, or find no template; if the Graph API cannot be
 * read, the hourly sync reads it, and the webhook is still answered 200.
 */
async function readTemplateFromGraph(workspaceId: string, templateId: string, readTemplate: TemplateReader, store: Store, now: Date, approvedAt?: string): Promise<TemplateWebhookOutcome> {
  let graph: GraphTemplate;
  try {
    graph = await readTemplate(templateId);
  } catch (error) {
    logger.warn('Template could not be read from WhatsApp; the next sync reads it', { workspaceId, providerTemplateId: templateId, error: error as Error });
    return 'not_read';
  }
  const workspace = await getWorkspace(workspaceId, store);
  if (!workspace) return 'unknown_account';
  // `now` was taken before the read: the answer is no older than it.
  const change = await upsertSyncedTemplate(workspaceId, { graph, readFrom: now, ...(approvedAt ? { statusChangedAt: approvedAt } : {}) }, workspace.settings.creditCostByCategory, now, store);
  logger.info('Template read from WhatsApp after its webhook', { workspaceId, providerTemplateId: templateId, name: graph.name, language: graph.language, change });
  return change === 'unchanged' || change === 'skipped' ? 'unchanged' : 'applied';
}

/**
 * The template under Meta's status event; an approval also approves the version under review, or
 * the one Meta rejected, whose content an appeal approved (the sync read it REJECTED meanwhile).
 */
function withStatus(template: Template, event: string, now: Date): Template | undefined {
  const status = templateStatusOf(event);
  if (!status) return undefined;
  const current = currentVersion(template);
  return {
    ...template,
    status,
    versions: template.versions.map((version) => (status === 'APPROVED' && version.id === current?.id && (version.status === 'PENDING' || version.status === 'REJECTED') ? approved(version, now) : version)),
  };
}

/** A version under review, approved: READY, or UNSUPPORTED when a send cannot fill it (decision 143). */
function approved(version: TemplateVersion, now: Date): TemplateVersion {
  const status = versionStatusOf('APPROVED', version);
  return { ...version, status, ...(status === 'READY' ? { readyAt: version.readyAt ?? now.toISOString() } : {}) };
}

async function withCategory(template: Template, update: z.infer<typeof categoryUpdateSchema>, workspaceId: string, store: Store, now: Date): Promise<Template | undefined> {
  const current = currentVersion(template);
  // Only a completed change names its previous category; an announced one names the current one as "new".
  // Without a current version, Meta's content is one this API could not store: no version may carry it.
  if (!update.previous_category || !isTemplateCategory(update.new_category) || !current?.contentDigest) return undefined;
  const workspace = await getWorkspace(workspaceId, store);
  if (!workspace) return undefined;
  const { template: merged } = mergeSyncedTemplate(
    template,
    {
      id: template.id,
      graph: { id: template.providerTemplateId ?? '', name: template.providerName, language: template.language },
      status: template.status,
      category: update.new_category,
      content: { body: current.body, variableDefinitions: current.variableDefinitions, components: current.components, unsupportedParts: current.unsupportedParts, contentDigest: current.contentDigest },
      creditCostPerSend: workspace.settings.creditCostByCategory[update.new_category],
    },
    now,
  );
  return merged;
}
