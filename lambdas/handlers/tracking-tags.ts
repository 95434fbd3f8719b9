import { discoverTrackingTags, tagDiscoveryPageSchema } from '../domain/reports/tag-discovery';
import { httpHandler, type AuthorizedRequest, type ResponseBody } from '../http/http-handler';
import { ok } from '../http/responses';
import { streamedItems, slices } from '../http/streamed-json';
import { streamingResponse } from '../http/streaming-response';
import * as routes from '../routes';
import { tagDiscoveryQuery } from './report-query.schema';

export const schemas = { query: tagDiscoveryQuery, response: tagDiscoveryPageSchema };

/**
 * GET /v1/messages/tracking-tags (docs/api.md#tracking-tags). A page of up to 100 000 tags of up to
 * 256 characters outgrows Lambda's buffered 6 MB, so the route streams it (decision 170); the page
 * is counted whole first, so a failed read is still an error answer, not a cut-off body.
 */
export const getTrackingTags = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => {
  const { items, pagination } = await discoverTrackingTags(principal.workspaceId, query);
  return ok<ResponseBody<typeof schemas>>(streamedItems({}, slices(items, 500), { pagination }));
};

export const handler = httpHandler(routes.trackingTags, schemas, getTrackingTags, { streamingResponse });
