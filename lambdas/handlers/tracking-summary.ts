import { pageOf } from '../domain/reports/pagination';
import { summarizeTrackingTags, tagSummaryReportSchema } from '../domain/reports/tag-summary';
import { lookUpWorkspace } from '../domain/workspaces/workspace-lookup';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { tagSummaryQuery } from './report-query.schema';

export const schemas = { query: tagSummaryQuery, response: tagSummaryReportSchema };

/**
 * GET /v1/messages/tracking-report/summary (docs/api.md#tracking-summary). `page` and `limit` page the tag
 * rows; the response carries no pagination object, as the contract says.
 */
export const getTrackingSummary = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => {
  const [tags, workspace] = await Promise.all([summarizeTrackingTags(principal.workspaceId, query), lookUpWorkspace(principal.workspaceId, new Date())]);
  return ok<ResponseBody<typeof schemas>>({
    period: { startDate: query.startDate, endDate: query.endDate, timezone: 'Asia/Jakarta' },
    rupiahPerCredit: workspace.rupiahPerCredit,
    items: pageOf(tags, query.page, query.limit).items,
  });
};

export const handler = httpHandler(routes.trackingSummary, schemas, getTrackingSummary);
