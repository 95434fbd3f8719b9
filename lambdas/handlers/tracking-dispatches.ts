import { dispatchListReportSchema, listReportDispatches } from '../domain/reports/dispatch-list';
import type { ReportHead } from '../domain/reports/tag-discovery';
import { lookUpWorkspace } from '../domain/workspaces/workspace-lookup';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { streamingResponse } from '../http/streaming-response';
import { streamedItems } from '../http/streamed-json';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { dispatchListQuery } from './report-query.schema';

export const schemas = { query: dispatchListQuery, response: dispatchListReportSchema };

/**
 * GET /v1/messages/tracking-report/dispatches (docs/api.md#tracking-dispatch-list). The body is written as the
 * rows are read and streamed to the client, so `limit` may be 100 000 (the route streams).
 */
export const getTrackingDispatches = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => {
  const [page, workspace] = await Promise.all([listReportDispatches(principal.workspaceId, query), lookUpWorkspace(principal.workspaceId, new Date())]);
  const head: ReportHead = { period: { startDate: query.startDate, endDate: query.endDate, timezone: 'Asia/Jakarta' }, rupiahPerCredit: workspace.rupiahPerCredit };
  return ok<ResponseBody<typeof schemas>>(streamedItems(head, page.rows, { pagination: page.pagination }));
};

export const handler = httpHandler(routes.trackingDispatches, schemas, getTrackingDispatches, { streamingResponse });
