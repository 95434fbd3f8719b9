import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dispatchItem } from '../../lambdas/domain/messages/dispatch-repository';
import type { Dispatch } from '../../lambdas/domain/messages/dispatch';
import { wibDay } from '../../lambdas/domain/time/wib';
import { mapWithConcurrency } from '../../lambdas/shared/concurrency';
import type { Store } from '../../lambdas/shared/store';
import { indexKeys, keys } from '../../lambdas/shared/table';

export interface ReportSeed {
  workspaceId: string;
  count: number;
  /** Dispatches spread evenly over this many WIB days, ending on `lastDay`. */
  days: number;
  lastDay: string;
  tags: string[];
  templates: { id: string; name: string }[];
}

/**
 * Writes `count` delivered dispatches straight into the table with everything the delivery path
 * writes when a dispatch first counts as sent (day index, tag links, rollups, day counters), so
 * report benchmarks and large-page tests need not push each one through the queue.
 */
export async function seedDeliveredDispatches(store: Store, seed: ReportSeed): Promise<string[]> {
  const lastMidnight = Date.parse(`${seed.lastDay}T00:00:00.000Z`) - 7 * 3_600_000;
  const items: Record<string, unknown>[] = [];
  const rollups = new Map<string, { key: { pk: string; sk: string }; count: number; credits: number; amount: number; extra: Record<string, unknown> }>();
  const add = (key: { pk: string; sk: string }, credits: number, amount: number, extra: Record<string, unknown>) => {
    const id = `${key.pk}|${key.sk}`;
    const rollup = rollups.get(id) ?? { key, count: 0, credits: 0, amount: 0, extra };
    rollup.count += 1;
    rollup.credits += credits;
    rollup.amount += amount;
    rollups.set(id, rollup);
  };
  const ids: string[] = [];

  for (let i = 0; i < seed.count; i++) {
    // Spread evenly: every day gets count/days dispatches, give or take one.
    const dayIndex = Math.floor((i * seed.days) / seed.count);
    const firstOfDay = Math.ceil((dayIndex * seed.count) / seed.days);
    const perDay = Math.ceil(((dayIndex + 1) * seed.count) / seed.days) - firstOfDay;
    const createdAt = new Date(lastMidnight - (seed.days - 1 - dayIndex) * 86_400_000 + 60_000 + (i - firstOfDay) * Math.floor(86_000_000 / perDay)).toISOString();
    const template = seed.templates[i % seed.templates.length]!;
    const tags = seed.tags.length ? [seed.tags[i % seed.tags.length]!] : [];
    const dispatch: Dispatch = {
      dispatchId: randomUUID(),
      workspaceId: seed.workspaceId,
      channel: 'whatsapp',
      to: `+62812${String(10_000_000 + i)}`,
      templateId: template.id,
      templateName: template.name,
      providerTemplateName: 'seeded',
      language: 'id',
      bodyParameters: ['Seeded'],
      tagIds: [],
      trackingTags: tags,
      source: 'EXTERNAL_API',
      apiClient: { id: '00000000-0000-4000-8000-000000000000', name: 'seed' },
      status: 'delivered',
      creditCost: 2,
      amountRupiah: 300,
      createdAt,
      updatedAt: createdAt,
      sentAt: createdAt,
      deliveredAt: createdAt,
      readAt: null,
      pricing: null,
      failureCode: null,
      sequence: 4,
    };
    ids.push(dispatch.dispatchId);
    const day = wibDay(new Date(createdAt));
    items.push({ ...dispatchItem(dispatch), ...indexKeys.sentDispatchByDay(seed.workspaceId, day, createdAt, dispatch.dispatchId) });
    add(keys.dayRollup(seed.workspaceId, day), 0, 0, { entity: 'dayRollup' });
    for (const tag of tags) {
      items.push({ ...keys.tagLink(seed.workspaceId, tag, createdAt, dispatch.dispatchId), entity: 'tagLink', dispatchId: dispatch.dispatchId });
      add(keys.tagRollup(seed.workspaceId, tag, day, template.id), 2, 300, { entity: 'tagRollup', trackingTag: tag, day, templateId: template.id, templateName: template.name });
      add(keys.dayTagRollup(seed.workspaceId, day, tag), 0, 0, { entity: 'dayTagRollup', trackingTag: tag });
    }
  }

  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, (i + 1) * 25));
  await mapWithConcurrency(batches, 8, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length) {
      const { UnprocessedItems } = await store.db.send(new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }));
      pending = (UnprocessedItems?.[store.tableName] ?? []) as typeof pending;
    }
  });
  await mapWithConcurrency([...rollups.values()], 8, ({ key, count, credits, amount, extra }) =>
    store.db.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: key,
        UpdateExpression: `SET ${Object.keys(extra).map((name, i) => `#a${i} = :a${i}`).join(', ')} ADD dispatchCount :count${credits ? ', credits :credits, amountRupiah :amount' : ''}`,
        ExpressionAttributeNames: Object.fromEntries(Object.keys(extra).map((name, i) => [`#a${i}`, name])),
        ExpressionAttributeValues: {
          ...Object.fromEntries(Object.values(extra).map((value, i) => [`:a${i}`, value])),
          ':count': count,
          ...(credits ? { ':credits': credits, ':amount': amount } : {}),
        },
      }),
    ),
  );
  return ids;
}
