import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultStore } from '../../shared/default-store';
import { ConflictError } from '../../shared/errors';
import { queryAll } from '../../shared/query-all';
import type { Store } from '../../shared/store';
import { accessPatterns, keys } from '../../shared/table';
import { isConditionFailed, onlyConflicts, transactWrite, transactWriteThroughConflicts, untilNotOutrun, writeIfAllowed, writeOne, type Write } from '../../shared/writes';
import type { WebhookEventType } from './event-types';
import { keepsMissedEvents } from './missed-events';
import {
  newWebhookEndpointId,
  newWebhookSecret,
  toWebhookEndpoint,
  WEBHOOK_ENDPOINTS_PER_WORKSPACE,
  WEBHOOK_SECRETS_KEPT,
  webhookEndpointCountDown,
  webhookEndpointCountUp,
  webhookEndpointDelete,
  webhookEndpointPut,
  webhookEndpointUpdate,
  subscribesTo,
  type DisabledReason,
  type WebhookEndpoint,
} from './webhook-endpoint';

export type { DisabledReason, WebhookEndpoint } from './webhook-endpoint';
export { enabledSince } from './webhook-endpoint';

export interface NewWebhookEndpoint {
  workspaceId: string;
  /** Already checked with `checkWebhookUrl`. */
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
}

/**
 * Stores a new, enabled endpoint with a fresh secret. Refused with 409
 * `webhook_endpoint_limit_reached` when the workspace has `WEBHOOK_ENDPOINTS_PER_WORKSPACE` already.
 */
/**
 * A request's `Idempotency-Key` claim, given what the change will answer: written in the change's
 * transaction (decision 197). Its refusal (another request holds the key) comes back as `KEY_TAKEN`.
 */
export type KeyClaimOf<A> = (answer: A) => Write;
export interface RotatedSecret {
  secret: string;
  previousSecretExpiresAt: string;
}
export const KEY_TAKEN = 'keyTaken';

export function createWebhookEndpoint(input: NewWebhookEndpoint, now: Date, store?: Store): Promise<WebhookEndpoint>;
export function createWebhookEndpoint(input: NewWebhookEndpoint, now: Date, store: Store, keyClaimOf: KeyClaimOf<WebhookEndpoint> | undefined): Promise<WebhookEndpoint | typeof KEY_TAKEN>;
export async function createWebhookEndpoint(
  input: NewWebhookEndpoint,
  now: Date,
  store: Store = defaultStore(),
  keyClaimOf?: KeyClaimOf<WebhookEndpoint>,
): Promise<WebhookEndpoint | typeof KEY_TAKEN> {
  const endpoint: WebhookEndpoint = {
    id: newWebhookEndpointId(),
    ...input,
    status: 'enabled',
    disabledReason: null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    enabledAt: now.toISOString(),
    secrets: [{ secret: newWebhookSecret(), expiresAt: null }],
  };
  const result = await transactWriteThroughConflicts(store, {
    endpoint: webhookEndpointPut(endpoint),
    count: webhookEndpointCountUp(input.workspaceId, WEBHOOK_ENDPOINTS_PER_WORKSPACE),
    key: keyClaimOf?.(endpoint),
  });
  if (result.committed) return endpoint;
  // A retry of a create that committed finds its key first, whatever the count says now.
  if (result.refused.key === 'ConditionalCheckFailed') return KEY_TAKEN;
  if (result.refused.count === 'ConditionalCheckFailed') {
    throw new ConflictError('webhook_endpoint_limit_reached', `A workspace may have at most ${WEBHOOK_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first`);
  }
  throw new Error(`Webhook endpoint create refused: ${JSON.stringify(result.refused)}`);
}

/** The workspace's endpoints, oldest first (at most `WEBHOOK_ENDPOINTS_PER_WORKSPACE`). */
export async function listWebhookEndpoints(workspaceId: string, store: Store = defaultStore()): Promise<WebhookEndpoint[]> {
  const items = await queryAll(store, accessPatterns.webhookEndpointsOfWorkspace(workspaceId));
  return items.map(toWebhookEndpoint).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** The workspace's endpoint with that id; undefined for an unknown id and for another workspace's. */
export async function getWebhookEndpoint(workspaceId: string, endpointId: string, store: Store = defaultStore()): Promise<WebhookEndpoint | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.webhookEndpoint(workspaceId, endpointId), ConsistentRead: true }));
  return Item ? toWebhookEndpoint(Item) : undefined;
}

export type EndpointReader = (workspaceId: string, endpointId: string) => Promise<WebhookEndpoint | undefined>;

/**
 * Endpoint reads for one batch of deliveries: each endpoint read once, however many of the batch's
 * records name it. The batch's records are posted at once, so the one read, made as the first of
 * them starts, is as fresh as one made by each; a read that fails fails every record waiting on it,
 * none of which has posted yet, and the queue gives them all back.
 */
export function endpointReadsOfBatch(store: Store = defaultStore()): EndpointReader {
  const reads = new Map<string, Promise<WebhookEndpoint | undefined>>();
  return (workspaceId, endpointId) => {
    const key = `${workspaceId}\u0000${endpointId}`;
    let read = reads.get(key);
    if (!read) reads.set(key, (read = getWebhookEndpoint(workspaceId, endpointId, store)));
    return read;
  };
}

/** Whether the endpoint is posted events of `type`: it is enabled and subscribed to it (a null `events` takes every type). */
export const takesEvent = (endpoint: WebhookEndpoint, type: WebhookEventType): boolean => endpoint.status === 'enabled' && subscribesTo(endpoint, type);

/** Whether an event of `type` is kept for the endpoint as missed: it subscribes, and is disabled, not for longer than MISSED_EVENTS_KEPT_MS. */
export const missesEvent = (endpoint: WebhookEndpoint, type: WebhookEventType, nowMs: number): boolean => keepsMissedEvents(endpoint, nowMs) && subscribesTo(endpoint, type);

/** What a PATCH may change; `status: 'enabled'` re-enables a disabled endpoint. */
export interface WebhookEndpointPatch {
  url?: string;
  events?: WebhookEventType[] | null;
  description?: string | null;
  status?: 'enabled';
}

/** Applies the changes named in `patch`; undefined when the workspace has no such endpoint. */
export async function updateWebhookEndpoint(
  workspaceId: string,
  endpointId: string,
  patch: WebhookEndpointPatch,
  now: Date,
  store: Store = defaultStore(),
): Promise<WebhookEndpoint | undefined> {
  // Re-enabled, its failures count afresh: those before made it `failing` already (FAILING_DISABLE_AFTER_MS).
  const reEnable = patch.status === 'enabled' ? { status: 'enabled' as const, disabledReason: null, enabledAt: now.toISOString() } : {};
  const { Update } = webhookEndpointUpdate(workspaceId, endpointId, { url: patch.url, events: patch.events, description: patch.description, ...reEnable }, now.toISOString());
  try {
    const { Attributes } = await store.db.send(new UpdateCommand({ ...Update, TableName: store.tableName, ReturnValues: 'ALL_NEW' }));
    return Attributes ? toWebhookEndpoint(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/** Deletes the endpoint and frees its place under the cap; false when the workspace has no such endpoint. */
export async function deleteWebhookEndpoint(workspaceId: string, endpointId: string, store: Store = defaultStore()): Promise<boolean> {
  const result = await transactWriteThroughConflicts(store, { endpoint: webhookEndpointDelete(workspaceId, endpointId), count: webhookEndpointCountDown(workspaceId) });
  if (result.committed) return true;
  if (result.refused.endpoint === 'ConditionalCheckFailed') return false;
  throw new Error(`Webhook endpoint delete refused: ${JSON.stringify(result.refused)}`);
}

/**
 * Stops deliveries to the endpoint, saying why; an endpoint disabled already keeps its first
 * reason, and a deleted one stays deleted. Given the endpoint as the caller read it, only while it
 * is still enabled since then: a delivery batch that read it before someone disabled and re-enabled
 * it judged failures the re-enable forgave, and the re-enable stands. Whether it disabled it.
 */
export async function disableWebhookEndpoint(
  workspaceId: string,
  endpointId: string,
  reason: DisabledReason,
  now: Date,
  store: Store = defaultStore(),
  asRead?: Pick<WebhookEndpoint, 'enabledAt'>,
): Promise<boolean> {
  const sameEnable = asRead && (asRead.enabledAt ? ' AND #enabledAt = :enabledAt' : ' AND attribute_not_exists(#enabledAt)');
  try {
    await writeOne(
      store,
      webhookEndpointUpdate(workspaceId, endpointId, { status: 'disabled', disabledReason: reason, disabledAt: now.toISOString() }, now.toISOString(), {
        expression: `#status = :enabled${sameEnable ?? ''}`,
        ...(sameEnable ? { names: { '#enabledAt': 'enabledAt' } } : {}),
        values: { ':enabled': 'enabled', ...(asRead?.enabledAt ? { ':enabledAt': asRead.enabledAt } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    return false;
  }
}

/**
 * Gives the endpoint a new secret and lets the current one keep signing for `overlapSeconds` (0
 * retires it at once). Secrets already past their overlap are dropped, and at most
 * `WEBHOOK_SECRETS_KEPT` are kept, newest first. Undefined when the workspace has no such endpoint.
 */
export function rotateWebhookSecret(workspaceId: string, endpointId: string, overlapSeconds: number, now: Date, store?: Store): Promise<RotatedSecret | undefined>;
export function rotateWebhookSecret(
  workspaceId: string,
  endpointId: string,
  overlapSeconds: number,
  now: Date,
  store: Store,
  keyClaimOf: KeyClaimOf<RotatedSecret> | undefined,
): Promise<RotatedSecret | typeof KEY_TAKEN | undefined>;
export async function rotateWebhookSecret(
  workspaceId: string,
  endpointId: string,
  overlapSeconds: number,
  now: Date,
  store: Store = defaultStore(),
  keyClaimOf?: KeyClaimOf<RotatedSecret>,
): Promise<RotatedSecret | typeof KEY_TAKEN | undefined> {
  const previousSecretExpiresAt = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  const inOverlap = (entry: { expiresAt: string | null }) => entry.expiresAt !== null && Date.parse(entry.expiresAt) > now.getTime();
  // One secret for every try: a try whose write was applied and its answer lost (the SDK sends the
  // same request again, refused by its condition) finds it current, and is the rotation, not outrun.
  const secret = newWebhookSecret();
  // Rotations that meet others of the same endpoint are redone as a conflict is, each on the last.
  const rotated = await untilNotOutrun(async () => {
    const endpoint = await getWebhookEndpoint(workspaceId, endpointId, store);
    if (!endpoint) return null;
    const [current, ...older] = endpoint.secrets;
    const answer = { secret, previousSecretExpiresAt };
    if (current.secret === secret) return answer;
    // Every earlier secret signs until the rotation's overlap ends at the latest: a rotation with
    // overlap 0, which replaces a leaked secret, leaves none of them signing.
    const retiring = [{ secret: current.secret, expiresAt: previousSecretExpiresAt }, ...older]
      .map((entry) => ({ secret: entry.secret, expiresAt: entry.expiresAt !== null && entry.expiresAt < previousSecretExpiresAt ? entry.expiresAt : previousSecretExpiresAt }))
      .filter(inOverlap);
    const secrets: WebhookEndpoint['secrets'] = [{ secret, expiresAt: null }, ...retiring.slice(0, WEBHOOK_SECRETS_KEPT - 1)];
    // Conditioned on the secret read, so a rotation that raced another is redone on top of it
    // rather than dropping the other's new secret.
    const update = webhookEndpointUpdate(workspaceId, endpointId, { secrets }, now.toISOString(), {
      expression: '#secrets[0].#secret = :current',
      names: { '#secret': 'secret' },
      values: { ':current': current.secret },
    });
    if (!keyClaimOf) return (await writeIfAllowed(store, update)) ? answer : undefined;
    const result = await transactWrite(store, { endpoint: update, key: keyClaimOf(answer) });
    if (result.committed) return answer;
    if (result.refused.key === 'ConditionalCheckFailed') return KEY_TAKEN;
    // Outrun (the secret read is no longer current, or a transaction held the endpoint): redone on the last.
    if (result.refused.endpoint === 'ConditionalCheckFailed' || onlyConflicts(result.refused)) return undefined;
    throw new Error(`Webhook secret rotation refused: ${JSON.stringify(result.refused)}`);
  });
  return rotated ?? undefined;
}
