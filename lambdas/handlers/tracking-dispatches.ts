import { listReportDispatches } from '../domain/reports/dispatch-list';
import { lookUpWorkspace } from '../domain/workspaces/workspace-lookup';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import { routes } from '../routes';
import { dispatchListQuery } from './report-query.schema';

export const schemas = { query: dispatchListQuery };

/** GET /v1/messages/tracking-report/dispatches (public-api.md §4.5). */
export const getTrackingDispatches = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => {
  const [list, workspace] = await Promise.all([listReportDispatches(principal.workspaceId, query), lookUpWorkspace(principal.workspaceId, new Date())]);
  return ok({
    period: { startDate: query.startDate, endDate: query.endDate, timezone: 'Asia/Jakarta' },
    rupiahPerCredit: workspace.rupiahPerCredit,
    items: list.items,
    pagination: list.pagination,
  });
};

export const handler = httpHandler(routes.trackingDispatches, schemas, getTrackingDispatches);
