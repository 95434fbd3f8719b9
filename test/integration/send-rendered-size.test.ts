import { getDispatch } from '../../lambdas/domain/messages/dispatch-repository';
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

  // A carousel card's body may use a placeholder many times (32 × `{{1}}` fits Meta's 160 characters); WhatsApp takes
  // it once, so it is kept once: ten cards of one 1024-character value each (a card's body value is at most 1024,
  // Meta's parameter object, decision 233) are 10 KB, not 328 KB refused.
  it('keeps a placeholder a carousel card repeats once: the send is queued with one parameter a card', async () => {
    const ws = await sendingWorkspace(env.table);
    const version = template.versions[0]!;
    const cards = Array.from({ length: 10 }, (_, i) => `card_${i}`);
    await saveTemplate(
      ws,
      {
        ...template,
        versions: [
          {
            ...version,
            variableDefinitions: [...version.variableDefinitions, ...cards.map((name) => ({ name, type: 'text' as const, required: true }))],
            components: { parameterFormat: 'POSITIONAL' as const, buttons: [], cards: cards.map((name) => ({ body: Array.from({ length: 32 }, () => name), buttons: [] })) },
          },
        ],
      },
      env.table,
    );
    const variables = { name: 'Budi', order: 'A-1', ...Object.fromEntries(cards.map((name) => [name, 'x'.repeat(1024)])) };
    const sent = await sendTemplateMessage(sendCommand(ws, { variables }), { store: env.table, queue: env.queues });
    expect(sent).toMatchObject({ status: 'queued' });
    const stored = await getDispatch(ws, sent.dispatchId, env.table);
    expect(stored!.templateParameters!.cards!.map((card) => card.bodyParameters)).toEqual(cards.map(() => ['x'.repeat(1024)]));
  });
});
