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

/**
 * A review: a template saved with a version id another template of the workspace has took the
 * version's record from it, so previewing the first template's version rendered the second's body.
 */
describe('a version id another template holds', () => {
  it('is refused, naming the version and its template, and the version stays the first template’s', async () => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150 }, new Date(), env.table);
    const shared = template.versions[0]!;
    await saveTemplate(ws, template, env.table);
    const copy = { ...template, id: randomUUID(), displayName: 'Order shipped (copy)', versions: [{ ...shared, body: 'B: Hai {{name}}, pesanan {{order}} tiba.' }] };

    await expect(saveTemplate(ws, copy, env.table)).rejects.toMatchObject({ code: 'validation_failed', message: `versions: ${shared.id} is a version of template ${template.id}; a version id names one version of the workspace` });
    await expect(previewTemplateVersion(ws, shared.id, values, env.table)).resolves.toEqual({ templateVersionId: shared.id, preview: 'Halo Budi, pesanan A-1 sudah dikirim.' });
    // The template may be saved again with its own versions.
    await expect(saveTemplate(ws, template, env.table)).resolves.toMatchObject({ id: template.id });
  });
});
