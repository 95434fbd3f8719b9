import * as z from 'zod';
import { reconcilerView, RELEASED_GRACE_MS, type ReconcilerView } from '../../../lambdas/domain/delivery/reconcile';
import type { Dispatch } from '../../../lambdas/domain/messages/dispatch';
import { getDispatchById } from '../../../lambdas/domain/messages/dispatch-repository';
import { AdminError, defineCommand, option } from '../command';

/** What happens next, as an operator reads it. */
function nextStep(dispatch: Dispatch, view: ReconcilerView): string {
  switch (view.kind) {
    case 'settled':
      return `nothing: ${dispatch.status} is settled${dispatch.status === 'unknown' ? ' (only a report from the provider moves it)' : ''}`;
    case 'requeue':
      return `queued again if still idle at ${view.after} (unless the queue's oldest message has waited as long)`;
    case 'attempt':
      return `a provider call may be under way; a dead attempt if still unsettled at ${view.deadAfter}`;
    case 'dead':
      return [
        `a dead attempt (its consumer died with the claim): a report for it may come until ${view.judgedAt}`,
        view.paced ? ' (WhatsApp was holding its template on this number: template pacing)' : '',
        view.evidenceNeeded === null
          ? `; never released: it names no number whose reports are kept (the stack's default one, which no workspace owns), so nothing can show WhatsApp never had it; settled unknown at ${view.unknownAt}`
          : `; then released, and queued again if nothing settles it for ${RELEASED_GRACE_MS / 60_000} minutes, if the number's reports have reached ${view.evidenceNeeded} (they reach ${view.reportedThrough ?? 'nothing yet'}),` +
            ` else settled unknown at ${view.unknownAt} (later while the dispatch queue's backlog may still hold its release)`,
      ].join('');
    case 'unanswered':
      return [
        `the provider's answer was lost (a timeout, a gateway's 502 or 504): a report for it settles it; none may come until ${view.judgedAt}`,
        view.paced ? ' (WhatsApp was holding its template on this number: template pacing)' : '',
        view.evidenceNeeded === null
          ? `; it names no number whose reports are kept, so nothing can show WhatsApp never had it: unknown for good from ${view.settledAt}, unless a report comes`
          : `; then given back, and queued again if nothing settles it for ${RELEASED_GRACE_MS / 60_000} minutes, if the number's reports have reached ${view.evidenceNeeded} (they reach ${view.reportedThrough ?? 'nothing yet'}),` +
            ` else unknown for good from ${view.settledAt}, unless a report comes`,
      ].join('');
  }
}

export const dispatchCommands = [
  defineCommand({
    name: 'dispatch show',
    synopsis: '--id DISPATCH_ID',
    summary: 'Shows a dispatch as stored (its attempt, the provider’s message id, its workspace) and what the reconciler does with it next, and when.',
    options: z.object({ id: option.id() }),
    async run({ id }, { store, now }) {
      const dispatch = await getDispatchById(id, store, true);
      if (!dispatch) throw new AdminError('not_found', `No dispatch ${id}`);
      const view = await reconcilerView(dispatch, now, store);
      const fields = {
        dispatchId: dispatch.dispatchId,
        workspaceId: dispatch.workspaceId,
        status: dispatch.status,
        to: dispatch.to,
        templateId: dispatch.templateId,
        templateName: dispatch.templateName,
        createdAt: dispatch.createdAt,
        updatedAt: dispatch.updatedAt,
        attemptStartedAt: dispatch.attemptStartedAt ?? null,
        laterAnswers: dispatch.laterAnswers ?? 0,
        // Of those, WhatsApp down's, which spend their own half hour (decision 231).
        outageAnswers: dispatch.outageAnswers ?? 0,
        providerMessageId: dispatch.providerMessageId ?? null,
        sentAt: dispatch.sentAt,
        deliveredAt: dispatch.deliveredAt,
        readAt: dispatch.readAt,
        failureCode: dispatch.failureCode,
      };
      const width = Math.max(...Object.keys(fields).map((name) => name.length)) + 2;
      return {
        data: { ...fields, next: view },
        lines: [...Object.entries(fields).map(([name, value]) => `${name.padEnd(width)}${value ?? '-'}`), `${'next'.padEnd(width)}${nextStep(dispatch, view)}`],
      };
    },
  }),
];
