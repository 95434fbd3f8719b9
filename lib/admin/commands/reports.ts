import * as z from 'zod';
import type { RollupDelta } from '../../../lambdas/domain/reports/report-items';
import { checkDayReports, rebuildDayReports, type DayReportCheck } from '../../../lambdas/domain/reports/report-rebuild';
import { isCalendarDate, wibDay } from '../../../lambdas/domain/time/wib';
import { AdminError, defineCommand } from '../command';
import { requireWorkspace } from './workspace-exists';

const options = z.object({
  workspace: z.string().trim().min(1, 'must not be empty'),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'takes a WIB day as YYYY-MM-DD').refine(isCalendarDate, 'takes a WIB day that exists (2026-02-30 does not)'),
});

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** One correction as an operator reads it: which rollup, and what it lacks (negative: holds too much). */
function describe(correction: RollupDelta): string {
  switch (correction.kind) {
    case 'day':
      return `the day's count: ${signed(correction.dispatchCount)}`;
    case 'dayTag':
      return `tag ${correction.tag}'s count: ${signed(correction.dispatchCount)}`;
    case 'tag':
      return `tag ${correction.tag}, template ${correction.templateName} (${correction.templateId}): ${signed(correction.dispatchCount)} dispatches, ${signed(correction.credits)} credits, ${signed(correction.amountRupiah)} rupiah`;
  }
}

function report(check: DayReportCheck, done: boolean) {
  const data = { workspace: check.workspaceId, date: check.day, counted: check.counted, corrections: check.corrections, linksMissing: check.links.missing, linksExtra: check.links.extra };
  const agrees = !check.corrections.length && !check.links.missing && !check.links.extra;
  const lines = [`${check.day}: ${check.counted} dispatches of ${check.workspaceId} count as sent.`];
  if (agrees) lines.push(done ? 'Nothing to put right: the rollups and tag links agree with them.' : 'The rollups and tag links agree with them.');
  else {
    lines.push(`${done ? 'Put right' : 'Differ from them'}: ${count(check.corrections.length, 'rollup')}, ${count(data.linksMissing, 'tag link')} missing, ${count(data.linksExtra, 'tag link')} of dispatches that do not count.`);
    lines.push(...check.corrections.map((correction) => `  ${describe(correction)}`));
  }
  return { data, lines };
}

export const reportCommands = [
  defineCommand({
    name: 'reports check',
    synopsis: '--workspace WS --date YYYY-MM-DD',
    summary:
      'Holds a WIB day’s report rollups and tag links against the dispatches that count as sent that day, and lists what differs (what each rollup lacks, or holds too much). Reads only.',
    options,
    async run({ workspace, date }, { store }) {
      await requireWorkspace(store, workspace);
      return report(await checkDayReports(workspace, date, store), false);
    },
  }),
  defineCommand({
    name: 'reports rebuild',
    synopsis: '--workspace WS --date YYYY-MM-DD',
    summary:
      'Puts a WIB day’s report rollups and tag links right by its dispatches (after a rollback across the report projection, or a backlog past the stream’s 24 hours). Only a day that is over; run `reports check` after it.',
    options,
    async run({ workspace, date }, { store, now }) {
      await requireWorkspace(store, workspace);
      // Today's dispatches still move, and the projection still writes their sums: a correction read then would be off by them.
      if (date >= wibDay(now)) throw new AdminError('day_not_over', `${date} is not over yet (WIB); rebuild a day once it is, and the projection has caught up (reports-behind OK)`);
      const check = await checkDayReports(workspace, date, store);
      await rebuildDayReports(check, store);
      return report(check, true);
    },
  }),
];
