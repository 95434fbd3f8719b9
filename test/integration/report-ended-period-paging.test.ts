import { randomUUID } from 'node:crypto';
import { deliverDispatch } from '../../lambdas/domain/delivery/deliver-dispatch';
import { sendTemplateMessage } from '../../lambdas/domain/messages/send-message';
import { listReportDispatches, readAllRows, type DispatchSelector } from '../../lambdas/domain/reports/dispatch-list';
import { acceptingProvider, freshWorkspace, sentDispatch } from '../support/report-fixtures';
import { TEMPLATE_ID } from '../support/send-fixtures';
import { useTableAndQueues } from '../support/sqs';
import { runReportProjection } from '../support/stream-consumer';

const env = useTableAndQueues();

/**
 * docs/api.md#pagination: a dispatch is listed under the WIB day it was created from the moment it is
 * sent, so one created at 23:59 WIB and sent after midnight (a backlog, a back-off, template pacing)
 * joins a period that has ended, at its top, while a client pages it; pages are offsets, so the next
 * page repeats a row and the new one is on none. What a client relies on to read the period whole:
 * `totalItems` changes, and reading again from page 1 lists every row once (found by the lists review).
 */
describe('paging a report period that has ended while a dispatch created in it is sent', () => {
  it.each<[string, DispatchSelector]>([
    ['scope=WORKSPACE', { scope: 'WORKSPACE' }],
    ['one tag', { trackingTags: ['night'], match: 'ANY' }],
  ])('tells the client by totalItems, and a read again from page 1 has every row once (%s)', async (_name, selector) => {
    const ws = await freshWorkspace(env.table);
    // 2026-05-01 WIB ended long before this test runs.
    const early = await sentDispatch(env, ws, '2026-05-01T03:00:00.000Z', ['night']);
    const later = await sentDispatch(env, ws, '2026-05-01T04:00:00.000Z', ['night']);
    // Created at 23:59:59 WIB that day, still queued when the client starts paging.
    const { dispatchId: lateNight } = await sendTemplateMessage(
      { workspaceId: ws, apiClient: { id: randomUUID(), name: 'k' }, to: '081234567891', templateId: TEMPLATE_ID, variables: { name: 'B', order: '1' }, tagIds: [], trackingTags: ['night'], now: new Date('2026-05-01T16:59:59.000Z') },
      { store: env.table, queue: env.queues },
    );
    const query = { startDate: '2026-05-01', endDate: '2026-05-01', limit: 1, selector };
    const readWhole = async () => {
      const first = await listReportDispatches(ws, { ...query, page: 1 }, env.table);
      const rows = await readAllRows(first);
      for (let page = 2; page <= first.pagination.totalPages; page++) rows.push(...(await readAllRows(await listReportDispatches(ws, { ...query, page }, env.table))));
      return rows.map((row) => row.dispatchId);
    };

    const page1 = await listReportDispatches(ws, { ...query, page: 1 }, env.table);
    expect([page1.pagination.totalItems, (await readAllRows(page1)).map((row) => row.dispatchId)]).toEqual([2, [later]]);
    // Sent after midnight: it is counted now, under 2026-05-01.
    await deliverDispatch({ dispatchId: lateNight, workspaceId: ws, receiveCount: 1, maxReceives: 5 }, { providerFor: () => acceptingProvider, store: env.table });
    await runReportProjection(env.table);
    const page2 = await listReportDispatches(ws, { ...query, page: 2 }, env.table);
    // The shift: page 2 repeats page 1's row, and its totalItems says the period changed.
    expect([page2.pagination.totalItems, (await readAllRows(page2)).map((row) => row.dispatchId)]).toEqual([3, [later]]);

    expect(await readWhole()).toEqual([lateNight, later, early]);
  });
});
