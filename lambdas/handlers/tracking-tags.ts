import { discoverTrackingTags, tagDiscoveryPageSchema } from '../domain/reports/tag-discovery';
import { httpHandler, type AuthorizedRequest } from '../http/http-handler';
import { ok } from '../http/responses';
import * as routes from '../routes';
import { tagDiscoveryQuery } from './report-query.schema';

export const schemas = { query: tagDiscoveryQuery, response: tagDiscoveryPageSchema };

/** GET /v1/messages/tracking-tags (docs/api.md#tracking-tags). */
export const getTrackingTags = async ({ principal, query }: AuthorizedRequest<typeof schemas>) => ok(await discoverTrackingTags(principal.workspaceId, query));

export const handler = httpHandler(routes.trackingTags, schemas, getTrackingTags);
