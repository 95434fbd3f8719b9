import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { clearNumberPaces, paceDeliveries } from '../../lambdas/domain/delivery/number-pace';
import { requeueDispatches } from '../../lambdas/domain/messages/dispatch-queue';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';
import { saveWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { keys } from '../../lambdas/shared/table';
import { useTableAndQueues } from '../support/sqs';

const env = useTableAndQueues();
beforeEach(() => {
  clearNumberPaces();
  clearWorkspaceCache();
});

async function whatsAppWorkspace(perSecond: number) {
  const id = `ws-${randomUUID().slice(0, 8)}`;
  const number = String(Date.now()) + String(Math.floor(Math.random() * 1000));
  await saveWorkspace({ id, name: id, rupiahPerCredit: 150, settings: { provider: 'whatsapp', whatsappPhoneNumberId: number, whatsappMessagesPerSecond: perSecond } }, new Date(), env.table);
  return { id, number };
}
const deliveries = (workspaceId: string, count: number) => Array.from({ length: count }, () => ({ workspaceId }));

describe('a WhatsApp number’s pace on DynamoDB Local (decision 136)', () => {
  it('is one counter per number and second, shared by every consumer, and starts afresh the next second', async () => {
    const { id, number } = await whatsAppWorkspace(3);
    const at = new Date('2026-11-27T08:00:00.100Z');
    const second = Math.floor(at.getTime() / 1000);

    // Two of three (two consumers could offer four: the container asks).
    expect(await paceDeliveries(deliveries(id, 2), at, env.table)).toEqual([0, 0]);
    // Another container, the same second: one slot left.
    clearNumberPaces();
    expect(await paceDeliveries(deliveries(id, 3), new Date(at.getTime() + 500), env.table)).toEqual([0, 1, 1]);

    const { Item } = await env.table.db.send(new GetCommand({ TableName: env.table.tableName, Key: keys.numberPace(number, second) }));
    expect(Item).toEqual({ ...keys.numberPace(number, second), entity: 'numberPace', offered: 5, ttl: second + 3_600 });

    expect(await paceDeliveries(deliveries(id, 3), new Date(at.getTime() + 1_000), env.table)).toEqual([0, 0, 0]);
  });

  it('holds a dispatch back as a new message of its workspace, not handed out before its delay', async () => {
    const message = { dispatchId: randomUUID(), workspaceId: 'ws-paced' };
    expect(await requeueDispatches([{ message, delaySeconds: 2 }], env.queues)).toEqual([]);

    const receive = () => env.queues.sqs.send(new ReceiveMessageCommand({ QueueUrl: env.queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
    expect((await receive()).Messages ?? []).toEqual([]);
    await sleep(2_200);
    const { Messages = [] } = await receive();
    expect(Messages.map((received) => [JSON.parse(received.Body!), received.Attributes?.ApproximateReceiveCount])).toEqual([[message, '1']]);
  });
});
