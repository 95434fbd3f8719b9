import { pageOf } from '../domain/reports/pagination';
import { summarizeTrackingTags, tagSummaryReportSchema } from '../domain/reports/tag-summary';
import { lookUpWorkspace } from '../domain/workspaces/workspace-lookup';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { ok } from '../http/responses';
import { streamedItems, slices } from '../http/streamed-json';
import { streamingResponse } from '../http/streaming-response';
import * as routes from '../routes';
import { tagSummaryQuery } from './report-query.schema';

export const schemas = { query: tagSummaryQuery, response: tagSummaryReportSchema };

/**
 * GET /v1/messages/tracking-report/summary (docs/api.md#tracking-summary). `page` and `limit` page the tag
 * rows; the response carries no pagination object, as the contract says. A tag row lists every
 * template the tag was used with, so 20 tags of a large WhatsApp Business Account outgrow Lambda's
 * buffered 6 MB and the route streams the answer (decision 229); it is read whole first, so a failed
 * read is still an error answer, not a cut-off body.
 */
export const getTrackingSummary = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => {
  const [tags, workspace] = await Promise.all([summarizeTrackingTags(principal.workspaceId, query), lookUpWorkspace(principal.workspaceId, new Date())]);
  const period = { startDate: query.startDate, endDate: query.endDate, timezone: 'Asia/Jakarta' as const };
  return ok<ResponseBody<typeof schemas>>(streamedItems({ period, rupiahPerCredit: workspace.rupiahPerCredit }, slices(pageOf(tags, query.page, query.limit).items, 1)));
};

export const handler = httpHandler(routes.trackingSummary, schemas, getTrackingSummary, { streamingResponse });
