import { randomUUID } from 'node:crypto';
import { getApprovedTemplate, previewTemplateVersion } from '../../lambdas/domain/templates/read-templates';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { NotFoundError } from '../../lambdas/shared/errors';
import { template } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
const values = [{ name: 'name', value: 'Budi' }, { name: 'order', value: 'A-1' }];

/**
 * A review: `templates import` of a template again, without a version it had, left that version's
 * record behind, with the template's status as it was then; preview rendered it, though the
 * template no longer had it, or was no longer APPROVED.
 */
describe('a version a template no longer has', () => {
  async function reimported(change: Partial<typeof template>) {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    const oldVersion = template.versions[0]!;
    await saveTemplate(ws, { ...template, versions: [oldVersion] }, env.table);
    const newVersion = { ...oldVersion, id: randomUUID(), version: 2, body: 'Hai {{name}}, pesanan {{order}} tiba.' };
    await saveTemplate(ws, { ...template, versions: [newVersion], ...change }, env.table);
    return { ws, oldVersion, newVersion };
  }

  it('is not previewed once an import dropped it: 404, while the version the template has is', async () => {
    const { ws, oldVersion, newVersion } = await reimported({});
    expect((await getApprovedTemplate(ws, template.id, env.table)).versions.map((version) => version.id)).toEqual([newVersion.id]);
    await expect(previewTemplateVersion(ws, oldVersion.id, values, env.table)).rejects.toBeInstanceOf(NotFoundError);
    await expect(previewTemplateVersion(ws, newVersion.id, values, env.table)).resolves.toEqual({ templateVersionId: newVersion.id, preview: 'Hai Budi, pesanan A-1 tiba.' });
  });

  it('is not previewed when the template is no longer APPROVED, the dropped version nor the one it has', async () => {
    const { ws, oldVersion, newVersion } = await reimported({ status: 'PAUSED' });
    for (const id of [oldVersion.id, newVersion.id]) await expect(previewTemplateVersion(ws, id, values, env.table)).rejects.toBeInstanceOf(NotFoundError);
  });
});
