import * as z from 'zod';
import { toE164 } from '../../../lambdas/domain/phones/phone-number';
import { getMarketingOptOut, listMarketingOptOuts, type MarketingOptOut } from '../../../lambdas/domain/workspaces/marketing-opt-out';
import { recordMarketingOptOut, removeMarketingOptOut } from '../../../lambdas/domain/workspaces/marketing-opt-out-changes';
import { AdminError, defineCommand, option } from '../command';
import { earlier, tableClock } from '../table-clock';
import { requireWorkspace } from './workspace-exists';

/** A phone number in any form a send accepts, as the E.164 number opt-outs are stored under. */
const phone = () =>
  option.text().transform((value, context) => {
    const e164 = toE164(value);
    if (!e164) context.addIssue({ code: 'custom', message: `"${value}" is not a phone number` });
    return e164 ?? value;
  });

const line = (optOut: MarketingOptOut) => [optOut.phone, optOut.optedOutAt, optOut.source, optOut.providerMessageId ?? ''].join('\t');

export const optOutCommands = [
  defineCommand({
    name: 'opt-outs list',
    synopsis: '--workspace ID',
    summary: 'Lists the numbers opted out of the workspace’s marketing messages: phone, since, source (button, whatsapp or admin), message id.',
    options: z.object({ workspace: option.text() }),
    async run({ workspace }, { store }) {
      await requireWorkspace(store, workspace);
      const optOuts = await listMarketingOptOuts(workspace, store);
      return { data: optOuts, lines: optOuts.map(line) };
    },
  }),
  defineCommand({
    name: 'opt-outs add',
    synopsis: '--workspace ID --phone PHONE',
    summary: 'Records an opt-out a customer asked for another way (support); MARKETING sends to the number are refused from then on.',
    options: z.object({ workspace: option.text(), phone: phone() }),
    async run({ workspace, phone }, { store, now }) {
      await requireWorkspace(store, workspace);
      const added = await recordMarketingOptOut({ workspaceId: workspace, phone, optedOutAt: now.toISOString(), source: 'admin' }, store);
      const optOut = await getMarketingOptOut(workspace, phone, store);
      return { data: optOut, lines: optOut ? [line(optOut)] : [], notes: [added ? `${phone} opted out of ${workspace}’s marketing messages.` : `${phone} had opted out already; the first record stands.`] };
    },
  }),
  defineCommand({
    name: 'opt-outs remove',
    synopsis: '--workspace ID --phone PHONE',
    summary: 'Lifts an opt-out (the customer asked to receive promotions again): MARKETING sends reach the number again.',
    options: z.object({ workspace: option.text(), phone: phone() }),
    async run({ workspace, phone }, { store, now }) {
      await requireWorkspace(store, workspace);
      // Not later than AWS's clock: a lift timed ahead of it would swallow the customer's next stop (decision 203).
      if (!(await removeMarketingOptOut(workspace, phone, store, earlier(now, tableClock(store))))) throw new AdminError('not_found', `${phone} has no opt-out in workspace ${workspace}`);
      return { data: { workspaceId: workspace, phone, removed: true }, lines: [`Removed the opt-out of ${phone} in ${workspace}.`] };
    },
  }),
];
