import { rupiah } from '../../shared/rupiah';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import { mapWithConcurrency } from '../../shared/concurrency';
import type { Store } from '../../shared/store';
import { tagRollups } from './report-items';
import { reportHeadSchema, type ReportPeriod } from './tag-discovery';

/** Summary rows (docs/api.md#tracking-summary): per tag, and per template within it. */
export const templateTotalsSchema = z.object({
  templateId: z.guid(),
  templateName: z.string(),
  dispatchCount: z.int().check(z.gte(0)),
  credits: z.int().check(z.gte(0)),
  amountRupiah: z.number().check(z.gte(0)),
});
export type TemplateTotals = z.output<typeof templateTotalsSchema>;

export const tagTotalsSchema = z.object({
  trackingTag: z.string(),
  dispatchCount: z.int().check(z.gte(0)),
  credits: z.int().check(z.gte(0)),
  amountRupiah: z.number().check(z.gte(0)),
  templates: z.array(templateTotalsSchema),
});
export type TagTotals = z.output<typeof tagTotalsSchema>;

/** The body of GET /v1/messages/tracking-report/summary: no pagination object (docs/api.md#tracking-summary). */
export const tagSummaryReportSchema = z.extend(reportHeadSchema, { items: z.array(tagTotalsSchema) });

/**
 * Per requested tag, SENT-or-DELIVERED dispatches, credits and rupiah in a WIB period, with the
 * same per template (docs/api.md#tracking-summary). One Query per tag on its rollups (tag → day → template), so
 * the cost follows days × templates, flat in the number of dispatches. A tag without dispatches
 * is still listed, with zeros.
 */
export async function summarizeTrackingTags(workspaceId: string, query: ReportPeriod & { trackingTags: string[] }, store: Store = defaultStore()): Promise<TagTotals[]> {
  const tags = [...new Set(query.trackingTags)];
  return mapWithConcurrency(tags, 20, async (trackingTag) => {
    const byTemplate = new Map<string, TemplateTotals>();
    for (const rollup of await tagRollups(workspaceId, trackingTag, query.startDate, query.endDate, store)) {
      const { templateId } = rollup;
      const totals = byTemplate.get(templateId) ?? { templateId, templateName: rollup.templateName, dispatchCount: 0, credits: 0, amountRupiah: 0 };
      totals.dispatchCount += rollup.dispatchCount;
      totals.credits += rollup.credits;
      totals.amountRupiah = rupiah(totals.amountRupiah + rollup.amountRupiah);
      byTemplate.set(templateId, totals);
    }
    const templates = [...byTemplate.values()].filter((t) => t.dispatchCount > 0).sort((a, b) => b.dispatchCount - a.dispatchCount || a.templateName.localeCompare(b.templateName));
    return {
      trackingTag,
      dispatchCount: templates.reduce((sum, t) => sum + t.dispatchCount, 0),
      credits: templates.reduce((sum, t) => sum + t.credits, 0),
      amountRupiah: rupiah(templates.reduce((sum, t) => sum + t.amountRupiah, 0)),
      templates,
    };
  });
}
