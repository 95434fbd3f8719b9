import * as z from 'zod';
import type { RollupDelta } from '../../../lambdas/domain/reports/report-items';
import { checkDayReports, REBUILD_SETTLE_MS, rebuildDayReports, RebuildOvertakenError, RebuildRunningError, type DayReportCheck, type DayReportRebuild } from '../../../lambdas/domain/reports/report-rebuild';
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
  const [linksMissing, linksExtra] = [check.links.missing.length, check.links.extra.length];
  const data = { workspace: check.workspaceId, date: check.day, counted: check.counted, corrections: check.corrections, linksMissing, linksExtra };
  const agrees = !check.corrections.length && !linksMissing && !linksExtra;
  const lines = [`${check.day}: ${check.counted} dispatches of ${check.workspaceId} count as sent.`];
  if (agrees) lines.push(done ? 'Nothing to put right: the rollups and tag links agree with them.' : 'The rollups and tag links agree with them.');
  else {
    lines.push(`${done ? 'Put right' : 'Differ from them'}: ${count(check.corrections.length, 'rollup')}, ${count(linksMissing, 'tag link')} missing, ${count(linksExtra, 'tag link')} of dispatches that do not count.`);
    lines.push(...check.corrections.map((correction) => `  ${describe(correction)}`));
  }
  return { data, lines };
}

/** A rebuild as `report` tells it, with what moved while it ran: the projection's to write, or a later rebuild's. */
function rebuilt({ written, moving }: DayReportRebuild) {
  const { data, lines } = report(written, true);
  const moved = moving.rollups + moving.links;
  return {
    data: { ...data, moving },
    lines,
    notes: moved
      ? [`${count(moving.rollups, 'rollup')} and ${count(moving.links, 'tag link')} changed while it ran (the projection writing the day's last changes), so were left: run \`reports check\` again in a minute, and \`reports rebuild\` if they still differ.`]
      : [],
  };
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
      `Puts a WIB day’s report rollups and tag links right by its dispatches (after a rollback across the report projection, or a backlog past the stream’s 24 hours). Only a day that is over, once the projection has caught up; reads the day twice, ${REBUILD_SETTLE_MS / 1000} s apart, and writes only what differs in both. One run a day at a time.`,
    options,
    async run({ workspace, date }, { store, now, wait }) {
      await requireWorkspace(store, workspace);
      // Today's dispatches still move, and the projection still writes their sums: a correction read then would be off by them.
      if (date >= wibDay(now)) throw new AdminError('day_not_over', `${date} is not over yet (WIB); rebuild a day once it is, and the projection has caught up (reports-behind OK)`);
      try {
        return rebuilt(await rebuildDayReports(workspace, date, store, { now, ...(wait ? { settle: wait } : {}) }));
      } catch (error) {
        if (error instanceof RebuildOvertakenError) {
          throw new AdminError('rebuild_overtaken', `${error.message} (the other run puts right what is left); run \`reports check\` once it has finished`);
        }
        if (!(error instanceof RebuildRunningError)) throw error;
        throw new AdminError('rebuild_running', `${date} of ${workspace} is being rebuilt by another run (held until ${error.until} at the latest); run \`reports check\` once it has finished`);
      }
    },
  }),
];
