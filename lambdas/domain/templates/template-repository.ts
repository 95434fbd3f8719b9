import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { ValidationError } from '../../shared/errors';
import { queryAll } from '../../shared/query-all';
import { accessPatterns, keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { transactWriteThroughConflicts, untilNotOutrun, type Write } from '../../shared/writes';
import { keptVersions, storableTemplateSchema, templateInputSchema, templateVersionInputSchema, type Template, type TemplateInput, type TemplateVersion } from './template';

/** The template item and its version pointers: keys, the import's writes, reading back. */

/**
 * Writes a template and one pointer per version (`TPLV#<versionId>`, carrying a copy of the
 * version and the template's status) in one transaction, so a preview resolves a version id with
 * a single GetItem.
 * Importing the same template again replaces it. `alongside.outbox` is the event of a status
 * change, written with it.
 */
export async function saveTemplate(workspaceId: string, input: TemplateInput, store: Store = defaultStore(), alongside: { outbox?: Write } = {}): Promise<Template> {
  const template = storableTemplateSchema.parse(input);
  await writeTemplate(workspaceId, template, store, alongside);
  return template;
}

/**
 * Reads a synced template (strongly: the save is held to what was read) and hands it to `apply`,
 * which saves with `saveTemplateOverRead`. A save refused because a webhook moved a mark since the
 * read (`apply` answers undefined) reads the template again: each is a webhook for this very
 * template landing between a read and its save, as when Meta re-delivers a backlog of one
 * template's webhooks at once. As many tries as other writes that meet others on one item, within
 * the time that leaves the webhook function its answer; then 503 (nothing was written).
 */
export function applyToTemplate<T>(workspaceId: string, templateId: string, store: Store, apply: (template: Template | undefined) => Promise<T | undefined>): Promise<T> {
  return untilNotOutrun(async () => apply(await getTemplate(workspaceId, templateId, store, { consistent: true })));
}

/**
 * `saveTemplate` of a template as read (`read`, none when there was none): made only while the
 * marks on the item (Meta's webhook changes, when its content was read) are still the ones read, so
 * neither a sync nor an older webhook moves them back over a newer one's (decisions 183, 188).
 * False when one moved.
 */
export async function saveTemplateOverRead(workspaceId: string, template: Template, read: Template | undefined, store: Store, alongside: { outbox?: Write } = {}): Promise<boolean> {
  // A template stored heavier before the byte limit (decision 184) lets its oldest superseded versions go, as a sync does.
  return writeTemplate(workspaceId, storableTemplateSchema.parse({ ...template, versions: keptVersions(template.versions) }), store, { ...alongside, condition: marksAsRead(read) });
}

const marks = ['statusChangedAt', 'categoryChangedAt', 'contentReadAt'] as const;
function marksAsRead(read: Template | undefined) {
  const held = marks.filter((mark) => read?.[mark] !== undefined);
  return {
    ConditionExpression: marks.map((mark) => (held.includes(mark) ? `${mark} = :${mark}` : `attribute_not_exists(${mark})`)).join(' AND '),
    ...(held.length ? { ExpressionAttributeValues: Object.fromEntries(held.map((mark) => [`:${mark}`, read![mark]])) } : {}),
  };
}

/** False when the template item's own condition refused the write. */
async function writeTemplate(
  workspaceId: string,
  template: Template,
  store: Store,
  { outbox, condition }: { outbox?: Write; condition?: ReturnType<typeof marksAsRead> },
): Promise<boolean> {
  const result = await transactWriteThroughConflicts(store, {
    template: { Put: { Item: storedTemplateItem(workspaceId, template), ...condition } },
    // A version id names one version of the workspace: one another template holds is not taken over.
    versions: template.versions.map((version) => ({
      Put: {
        Item: { ...keys.templateVersion(workspaceId, version.id), entity: 'templateVersion', workspaceId, templateId: template.id, templateStatus: template.status, version },
        ConditionExpression: 'attribute_not_exists(pk) OR templateId = :template',
        ExpressionAttributeValues: { ':template': template.id },
      },
    })),
    // At most MAX_TEMPLATE_VERSIONS: with the template and its event, within a transaction's 100 items.
    outbox,
  });
  if (result.committed) return true;
  if (result.refused.versions === 'ConditionalCheckFailed') {
    const taken = await versionsHeldElsewhere(workspaceId, [template], store);
    throw new ValidationError(`versions: ${taken.map(({ id, holder }) => `${id} is a version of template ${holder}`).join('; ')}; a version id names one version of the workspace`);
  }
  if (condition && result.refused.template === 'ConditionalCheckFailed') return false;
  throw new Error(`Template save cancelled: ${JSON.stringify(result.refused)}`);
}

/** The versions of `templates` another template of the workspace holds: a save of theirs is refused. */
export async function versionsHeldElsewhere(workspaceId: string, templates: readonly Pick<Template, 'id' | 'versions'>[], store: Store = defaultStore()): Promise<{ id: string; holder: string }[]> {
  const versions = templates.flatMap((template) => template.versions.map(({ id }) => ({ id, template: template.id })));
  const held = await Promise.all(versions.map(async ({ id, template }) => ({ id, template, holder: (await getTemplateVersion(workspaceId, id, store))?.templateId })));
  return held.flatMap(({ id, template, holder }) => (holder !== undefined && holder !== template ? [{ id, holder }] : []));
}

/**
 * Removes the copy of a template an import before decision 214 stored under its id as the file wrote
 * it (`writtenId`, upper case), with that copy's version pointers: no request could read it, and its
 * lower-case template, now saved, stands for it. Nothing when the id was written in lower case or no
 * such copy is held. A pointer is removed only while it is still the copy's. True when one was removed.
 */
export async function removeTemplateStoredAsWritten(workspaceId: string, writtenId: string, store: Store = defaultStore()): Promise<boolean> {
  if (writtenId === writtenId.toLowerCase()) return false;
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.template(workspaceId, writtenId), ConsistentRead: true }));
  if (!Item) return false;
  // Read as stored: the template schema would give its version ids in lower case, not the pointers' keys.
  const { versions } = parseItem(writtenVersionIdsSchema, Item, 'template');
  const result = await transactWriteThroughConflicts(store, {
    template: { Delete: { Key: keys.template(workspaceId, writtenId) } },
    versions: versions.map(({ id }) => ({
      Delete: { Key: keys.templateVersion(workspaceId, id), ConditionExpression: 'attribute_not_exists(pk) OR templateId = :template', ExpressionAttributeValues: { ':template': writtenId } },
    })),
  });
  if (!result.committed) throw new Error(`Removing template ${writtenId} as stored cancelled: ${JSON.stringify(result.refused)}`);
  return true;
}

const writtenVersionIdsSchema = z.object({ versions: z.array(z.object({ id: z.string() })) });

/** The stored template item (also the testing kit's, lib/testing/send-items.ts). */
export const storedTemplateItem = (workspaceId: string, template: Template) => ({ ...keys.template(workspaceId, template.id), entity: 'template', workspaceId, ...template });

/** All templates of a workspace, whatever their status. */
export async function listTemplates(workspaceId: string, store: Store = defaultStore()): Promise<Template[]> {
  const templates = (await queryAll(store, accessPatterns.templatesOfWorkspace(workspaceId))).map(toTemplate);
  return templates.sort((a, b) => a.displayName.localeCompare(b.displayName) || a.id.localeCompare(b.id));
}

export async function getTemplate(workspaceId: string, templateId: string, store: Store = defaultStore(), { consistent = false } = {}): Promise<Template | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.template(workspaceId, templateId), ...(consistent ? { ConsistentRead: true } : {}) }));
  return Item ? toTemplate(Item) : undefined;
}

export async function getTemplateVersion(
  workspaceId: string,
  versionId: string,
  store: Store = defaultStore(),
): Promise<{ templateId: string; version: TemplateVersion } | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.templateVersion(workspaceId, versionId) }));
  return Item ? parseItem(versionPointerSchema, Item, 'template version') : undefined;
}

// Its `templateStatus` is not read: pointers the foundation releases imported have none (a preview of
// them answered 500). It is still written, for the releases before, which require it, to roll back to.
const versionPointerSchema = z.object({ templateId: z.string(), version: templateVersionInputSchema });

function toTemplate(item: Record<string, unknown>): Template {
  return parseItem(templateInputSchema, item, 'template');
}
