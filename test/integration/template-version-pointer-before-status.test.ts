import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { previewTemplateVersion } from '../../lambdas/domain/templates/read-templates';
import { getTemplate, saveTemplate, versionsHeldElsewhere } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../lambdas/shared/table';
import { template, TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();

/**
 * The foundation releases (bc29d84 … e1a4085, `templates import`) wrote each version's pointer as
 * `{ ...keys.templateVersion, entity, workspaceId, templateId, version }` (template-repository.ts
 * at cc65c2d); `templateStatus` came with 9be42c4. Read as required, such a pointer made a preview
 * of its version 500 and the same file's import fail, with no remedy but editing the table.
 */
async function importedByFoundation() {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
  await saveTemplate(ws, template, env.table);
  const stored = (await getTemplate(ws, TEMPLATE_ID, env.table))!;
  const version = stored.versions[0]!;
  // The pointer as cc65c2d's saveTemplate wrote it.
  await env.table.db.send(new PutCommand({ TableName: env.table.tableName, Item: { ...keys.templateVersion(ws, version.id), entity: 'templateVersion', workspaceId: ws, templateId: TEMPLATE_ID, version } }));
  return { ws, version };
}

describe('upgrade: a template imported by the foundation release (cc65c2d)', () => {
  it('previews its version', async () => {
    const { ws, version } = await importedByFoundation();

    await expect(previewTemplateVersion(ws, version.id, [{ name: 'name', value: 'Budi' }, { name: 'order', value: 'A-1' }], env.table)).resolves.toEqual(
      expect.objectContaining({ templateVersionId: version.id }),
    );
  });

  // `templates import` asks this of every version before it writes (lib/admin/commands/templates.ts).
  it('can be imported again', async () => {
    const { ws } = await importedByFoundation();
    await expect(versionsHeldElsewhere(ws, [template], env.table)).resolves.toEqual([]);
  });
});
