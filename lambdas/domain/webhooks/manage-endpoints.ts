import { NotFoundError, ValidationError } from '../../shared/errors';
import type { Store } from '../../shared/store';
import { defaultStore } from '../../shared/default-store';
import { toResource, type WebhookEndpointResource } from './endpoint-resource';
import { checkWebhookUrl, configuredUrlRules, type Resolver } from './url-rules';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  KEY_TAKEN,
  type NewWebhookEndpoint,
  type RotatedSecret,
  type WebhookEndpoint,
  type WebhookEndpointPatch,
} from './webhook-endpoint-repository';
import { answerOfTakenKey, earlierEndpointAnswer, endpointKeyClaim, endpointRequestKey } from './endpoint-idempotency';

/** The longest overlap a rotation may give the old secret: a week. */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

export interface ManageDependencies {
  store?: Store;
  /** How URLs are checked: the process's configuration unless a test says otherwise. */
  urlRules?: { resolve: Resolver; allowLocal: boolean };
}

const notFound = () => new NotFoundError('Webhook endpoint');

/** Refuses, as the contract's 422, a URL the rules do not allow (docs/api.md#webhook-url-rules). */
async function checkedUrl(url: string, urlRules = configuredUrlRules()): Promise<string> {
  const verdict = await checkWebhookUrl(url, urlRules);
  if (!verdict.ok) throw new ValidationError(`body.url: ${verdict.reason}`);
  return verdict.url.href;
}

/** An answer, and whether it is an earlier request's with the same `Idempotency-Key` (decision 197). */
export type Answered<T> = { answer: T; replayed: boolean };

type CreatedEndpoint = WebhookEndpointResource & { secret: string };

/**
 * Registers an endpoint after checking its URL; the answer holds its secret, the only time it is
 * shown. With an `Idempotency-Key`, the same request made again within 24 h gets that answer.
 */
export async function registerEndpoint(input: NewWebhookEndpoint, now: Date, deps: ManageDependencies = {}, idempotencyKey?: string): Promise<Answered<CreatedEndpoint>> {
  const store = deps.store ?? defaultStore();
  const key = idempotencyKey ? endpointRequestKey(idempotencyKey, { route: 'createWebhookEndpoint', url: input.url, events: input.events, description: input.description }) : undefined;
  const earlier = key && (await earlierEndpointAnswer<CreatedEndpoint>(input.workspaceId, key, now, store));
  if (earlier) return { answer: earlier, replayed: true };
  const url = await checkedUrl(input.url, deps.urlRules);
  const answerOf = (endpoint: WebhookEndpoint): CreatedEndpoint => ({ ...toResource(endpoint), secret: endpoint.secrets[0].secret });
  const created = await createWebhookEndpoint({ ...input, url }, now, store, key && ((endpoint) => endpointKeyClaim(input.workspaceId, key, answerOf(endpoint), now)));
  if (created === KEY_TAKEN) return { answer: await answerOfTakenKey<CreatedEndpoint>(input.workspaceId, key!, now, store), replayed: true };
  return { answer: answerOf(created), replayed: false };
}

export async function listEndpoints(workspaceId: string, deps: ManageDependencies = {}): Promise<WebhookEndpointResource[]> {
  return (await listWebhookEndpoints(workspaceId, deps.store ?? defaultStore())).map(toResource);
}

/** The workspace's endpoint; 404 for an unknown id and for another workspace's alike. */
export async function readEndpoint(workspaceId: string, endpointId: string, deps: ManageDependencies = {}): Promise<WebhookEndpointResource> {
  const endpoint = await getWebhookEndpoint(workspaceId, endpointId, deps.store ?? defaultStore());
  if (!endpoint) throw notFound();
  return toResource(endpoint);
}

/** Applies a PATCH; a new URL is checked like a new endpoint's. */
export async function changeEndpoint(workspaceId: string, endpointId: string, patch: WebhookEndpointPatch, now: Date, deps: ManageDependencies = {}): Promise<WebhookEndpointResource> {
  const store = deps.store ?? defaultStore();
  // An unknown id is 404 before its URL is judged: the answer must not depend on the body.
  if (patch.url !== undefined && !(await getWebhookEndpoint(workspaceId, endpointId, store))) throw notFound();
  const url = patch.url === undefined ? undefined : await checkedUrl(patch.url, deps.urlRules);
  const changed = await updateWebhookEndpoint(workspaceId, endpointId, { ...patch, ...(url === undefined ? {} : { url }) }, now, store);
  if (!changed) throw notFound();
  return toResource(changed);
}

export async function removeEndpoint(workspaceId: string, endpointId: string, deps: ManageDependencies = {}): Promise<void> {
  if (!(await deleteWebhookEndpoint(workspaceId, endpointId, deps.store ?? defaultStore()))) throw notFound();
}

/**
 * Gives the endpoint a new secret, shown in the answer only; the old one signs on until
 * `previousSecretExpiresAt`. With an `Idempotency-Key`, the same request made again within 24 h
 * gets that answer, and rotates nothing.
 */
export async function rotateSecret(
  workspaceId: string,
  endpointId: string,
  overlapSeconds: number,
  now: Date,
  deps: ManageDependencies = {},
  idempotencyKey?: string,
): Promise<Answered<RotatedSecret>> {
  const store = deps.store ?? defaultStore();
  const key = idempotencyKey ? endpointRequestKey(idempotencyKey, { route: 'rotateWebhookSecret', endpointId, overlapSeconds }) : undefined;
  const earlier = key && (await earlierEndpointAnswer<RotatedSecret>(workspaceId, key, now, store));
  if (earlier) return { answer: earlier, replayed: true };
  const rotated = await rotateWebhookSecret(workspaceId, endpointId, overlapSeconds, now, store, key && ((answer) => endpointKeyClaim(workspaceId, key, answer, now)));
  if (!rotated) throw notFound();
  if (rotated === KEY_TAKEN) return { answer: await answerOfTakenKey<RotatedSecret>(workspaceId, key!, now, store), replayed: true };
  return { answer: rotated, replayed: false };
}
