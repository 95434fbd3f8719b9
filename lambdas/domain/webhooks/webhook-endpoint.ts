import { randomBytes } from 'node:crypto';
import * as z from '../../shared/zod';
import { parseItem } from '../../shared/stored-item';
import { keys } from '../../shared/table';
import type { Write } from '../../shared/writes';
import { webhookEventTypes } from './event-types';

/** How many endpoints a workspace may have: every event reads them all, in one small Query. */
export const WEBHOOK_ENDPOINTS_PER_WORKSPACE = 10;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
/** Secrets an endpoint keeps at once: the current one and those still in their overlap. */
export const WEBHOOK_SECRETS_KEPT = 3;

const ENDPOINT_ID = /^whe_[0-9a-f]{32}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{40,}={0,2}$/;

/** `whe_` and 128 random bits in hex: opaque, unguessable, and recognisable in logs and URLs. */
export const newWebhookEndpointId = (): string => `whe_${randomBytes(16).toString('hex')}`;
export const isWebhookEndpointId = (value: string): boolean => ENDPOINT_ID.test(value);

/**
 * A signing secret in the Standard Webhooks format: `whsec_` and the base64 of 32 random bytes
 * (the `standardwebhooks` package strips the prefix and signs with the decoded bytes).
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const secretEntry = z.object({ secret: z.string().check(z.regex(SECRET)), expiresAt: z.nullable(z.string()) });

/**
 * The webhook endpoint item, `WS#<ws>#WHE` / `WHE#<id>`: where a workspace's events are posted.
 * Its secrets are stored as they are, because every delivery signs with them; the table is
 * encrypted at rest, and no route returns a secret after the call that made it (decision 70).
 */
const webhookEndpointSchema = z.object({
  id: z.string().check(z.regex(ENDPOINT_ID)),
  workspaceId: z.string(),
  url: z.string(),
  /** null: every type, including types added later. */
  events: z.nullable(z.array(z.enum(webhookEventTypes)).check(z.minLength(1))),
  description: z.nullable(z.string()),
  status: z.enum(['enabled', 'disabled']),
  /** `gone`: the receiver answered 410; `failing`: deliveries kept failing for days. */
  disabledReason: z.nullable(z.enum(['gone', 'failing'])),
  createdAt: z.string(),
  updatedAt: z.string(),
  /**
   * When it was last enabled: created, or re-enabled by PATCH. Its events' failures count towards
   * `failing` only from then. Absent on endpoints stored before it was kept: their `updatedAt`
   * (`enabledSince`).
   */
  enabledAt: z.optional(z.string()),
  /** When it was last disabled. Absent on endpoints disabled before it was kept: their `updatedAt`. */
  disabledAt: z.optional(z.string()),
  /** Newest first. A rotated-out secret keeps signing until `expiresAt` (the overlap). */
  secrets: z.tuple([secretEntry], secretEntry),
});

export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
export type DisabledReason = NonNullable<WebhookEndpoint['disabledReason']>;

/** Reads a stored endpoint item. */
export const toWebhookEndpoint = (item: Record<string, unknown>): WebhookEndpoint => parseItem(webhookEndpointSchema, item, 'webhook endpoint');

/** Stores a new endpoint; refused if its id is taken (never, with 128 random bits, but never overwritten). */
export const webhookEndpointPut = (endpoint: WebhookEndpoint): Write => ({
  Put: {
    Item: { ...keys.webhookEndpoint(endpoint.workspaceId, endpoint.id), entity: 'webhookEndpoint', ...webhookEndpointSchema.parse(endpoint) },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** Removes an endpoint; refused when the workspace has no endpoint with that id. */
export const webhookEndpointDelete = (workspaceId: string, endpointId: string): Write => ({
  Delete: { Key: keys.webhookEndpoint(workspaceId, endpointId), ConditionExpression: 'attribute_exists(pk)' },
});

/** The attributes a change may set; the others stay as stored. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'status' | 'disabledReason' | 'enabledAt' | 'disabledAt' | 'secrets'>>;

/**
 * Since when the endpoint has been enabled this time. One stored before `enabledAt` was kept may
 * have been re-enabled then, which set only `updatedAt`: that, and never earlier (a later change
 * only starts its failures' count later).
 */
export const enabledSince = (endpoint: WebhookEndpoint): string => endpoint.enabledAt ?? endpoint.updatedAt;


/** Whether the endpoint subscribes to events of `type` (a null `events` takes every type). */
export const subscribesTo = (endpoint: WebhookEndpoint, type: string): boolean => endpoint.events === null || (endpoint.events as readonly string[]).includes(type);

/**
 * Sets only the attributes named in `changes` (and `updatedAt`) on an existing endpoint. `condition`
 * adds to the existence check, e.g. to refuse a change that raced another.
 */
export function webhookEndpointUpdate(
  workspaceId: string,
  endpointId: string,
  changes: WebhookEndpointChanges,
  now: string,
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> },
): Extract<Write, { Update: unknown }> {
  const entries = Object.entries({ ...changes, updatedAt: now }).filter(([, value]) => value !== undefined);
  return {
    Update: {
      Key: keys.webhookEndpoint(workspaceId, endpointId),
      UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
      ConditionExpression: condition ? `attribute_exists(pk) AND (${condition.expression})` : 'attribute_exists(pk)',
      ExpressionAttributeNames: { ...Object.fromEntries(entries.map(([name]) => [`#${name}`, name])), ...condition?.names },
      ExpressionAttributeValues: { ...Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])), ...condition?.values },
    },
  };
}

/**
 * The workspace's endpoint count, `WS#<ws>#WHE` / `COUNT`, moved in the same transaction as each
 * create and delete, so two creates at once cannot pass the cap together.
 */
export const webhookEndpointCountUp = (workspaceId: string, cap: number): Write => ({
  Update: {
    Key: keys.webhookEndpointCount(workspaceId),
    UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one, entity = :entity',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :cap',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':cap': cap, ':entity': 'webhookEndpointCount' },
  },
});

export const webhookEndpointCountDown = (workspaceId: string): Write => ({
  Update: {
    Key: keys.webhookEndpointCount(workspaceId),
    UpdateExpression: 'SET #count = #count - :one',
    ConditionExpression: '#count > :zero',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
  },
});
