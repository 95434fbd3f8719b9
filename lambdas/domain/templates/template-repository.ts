import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '../../shared/query-all';
import { keys, prefixes } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { templateInputSchema, type Template, type TemplateInput, type TemplateVersion } from './template';

const FIELDS = ['id', 'displayName', 'status', 'providerName', 'language', 'versions'] as const;

/**
 * Writes a template and one pointer per version (`TPLV#<versionId>`, carrying a copy of the
 * version and the template's status) in one transaction, so a preview resolves a version id with
 * a single GetItem.
 * Importing the same template again replaces it.
 */
export async function saveTemplate(workspaceId: string, input: TemplateInput, store: Store = defaultStore()): Promise<Template> {
  const template = templateInputSchema.parse(input);
  await store.db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: store.tableName, Item: { ...keys.template(workspaceId, template.id), entity: 'template', workspaceId, ...template } } },
        ...template.versions.map((version) => ({
          Put: {
            TableName: store.tableName,
            Item: { ...keys.templateVersion(workspaceId, version.id), entity: 'templateVersion', workspaceId, templateId: template.id, templateStatus: template.status, version },
          },
        })),
      ],
    }),
  );
  return template;
}

/** All templates of a workspace, whatever their status. */
export async function listTemplates(workspaceId: string, store: Store = defaultStore()): Promise<Template[]> {
  const { pk, skPrefix } = prefixes.templatesOfWorkspace(workspaceId);
  const templates = (
    await queryAll(store, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    })
  ).map(toTemplate);
  return templates.sort((a, b) => a.displayName.localeCompare(b.displayName) || a.id.localeCompare(b.id));
}

export async function getTemplate(workspaceId: string, templateId: string, store: Store = defaultStore()): Promise<Template | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.template(workspaceId, templateId) }));
  return Item ? toTemplate(Item) : undefined;
}

export async function getTemplateVersion(
  workspaceId: string,
  versionId: string,
  store: Store = defaultStore(),
): Promise<{ templateId: string; templateStatus: string; version: TemplateVersion } | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.templateVersion(workspaceId, versionId) }));
  return Item ? { templateId: Item.templateId as string, templateStatus: Item.templateStatus as string, version: Item.version as TemplateVersion } : undefined;
}

function toTemplate(item: Record<string, unknown>): Template {
  return Object.fromEntries(FIELDS.map((field) => [field, item[field]])) as Template;
}
