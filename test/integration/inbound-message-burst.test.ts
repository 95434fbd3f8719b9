import { randomUUID } from 'node:crypto';
import { applyProviderReports } from '../../lambdas/domain/delivery/provider-reports';
import { listConversations } from '../../lambdas/domain/conversations/read-conversations';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { useTableAndQueues } from '../support/sqs';
import { emulateTransactionConflicts } from '../support/transaction-conflicts';
import { inboundTextWebhook } from '../support/webhooks';

const env = useTableAndQueues();

describe('a customer’s burst of messages, each in its own webhook POST at once (DynamoDB serialising the conversation)', () => {
  it.each([[false, 10], [true, 5], [true, 10]])('stores every one on the first POST, however DynamoDB serialises the conversation (conflicts %s, %i messages)', async (conflicting, count) => {
    const ws = `ws-${randomUUID().slice(0, 8)}`;
    const number = `num-${randomUUID().slice(0, 8)}`;
    await saveWorkspace({ id: ws, name: ws, rupiahPerCredit: 150, settings: { whatsappPhoneNumberId: number } }, new Date(), env.table);
    const from = '6281234567001';
    const base = Date.now();
    const conflicts = conflicting ? emulateTransactionConflicts(env.table.db) : undefined;
    let answers: string[];
    try {
      answers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          applyProviderReports(inboundTextWebhook({ phoneNumberId: number, from, name: 'Sari', id: `wamid.${randomUUID()}`, text: `pesan ${i}`, at: new Date(base + i * 1000) }), env.table).then(
            () => '200',
            (error: Error) => `500 ${error.message}`,
          ),
        ),
      );
    } finally {
      conflicts?.remove();
    }
    // A webhook POST answered anything but 200 is one Meta retries for days: the messages wait until then.
    expect(answers.filter((a) => a !== '200')).toEqual([]);
    const [conversation] = (await listConversations(ws, { phone: from, limit: 10 }, env.table)).items;
    expect(conversation).toMatchObject({ messageCount: count, inboundCount: count });
  });
});
