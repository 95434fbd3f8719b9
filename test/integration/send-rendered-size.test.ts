import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { saveTemplate } from '../../lambdas/domain/templates/template-repository';
import type { AppError } from '../../lambdas/shared/errors';
import { sendCommand, sendingWorkspace } from '../support/send-commands';
import { template } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';

/**
 * The variables' limits (50, 4000 characters each, 120 KB together) bound what a send gives, not
 * what it stores: a body that repeats a placeholder repeats its value in the dispatch's parameters
 * and in the conversation's text. One 4000-character value in a placeholder a body uses 200 times
 * (an imported template may) rendered 800 KB: DynamoDB refused the item and the send answered 500.
 */
const env = useTableAndQueues();
afterEach(async () => {
  await env.queues.receiveAll();
});

describe('a send whose template renders its values past what one stored item holds', () => {
  it('is refused 422 validation_failed naming the size, and writes nothing; the same body with shorter values sends', async () => {
    const ws = await sendingWorkspace(env.table);
    await saveTemplate(ws, { ...template, versions: [{ ...template.versions[0]!, body: `${'{{name}} '.repeat(200)}{{order}}` }] }, env.table);
    const before = (await env.table.scanAll()).length;

    const refused = await sendTemplateMessage(sendCommand(ws, { variables: { name: 'x'.repeat(4000), order: 'A-1' } }), { store: env.table, queue: env.queues }).then(
      () => undefined,
      (error: unknown) => error as AppError,
    );
    expect([refused?.status, refused?.code, refused?.message]).toEqual([422, 'validation_failed', expect.stringContaining('renders these values to 801 KB of UTF-8 (its placeholders repeat them); at most 120 KB')]);
    expect((await env.table.scanAll()).length).toBe(before);

    await expect(sendTemplateMessage(sendCommand(ws, { variables: { name: 'x'.repeat(500), order: 'A-1' } }), { store: env.table, queue: env.queues })).resolves.toMatchObject({ status: 'queued' });
  });
});
