/**
 * The single-table schema: attribute names, indexes and the key builders every repository uses.
 * The CDK table (lib/constructs/messaging-table.ts) and the local bootstrap (lib/local/bootstrap.ts)
 * are both built from `tableDefinition`, so the deployed and local tables cannot drift.
 *
 * Both GSIs are overloaded: each entity puts its own access pattern's keys in gsiNpk/gsiNsk,
 * and an entity without that pattern simply leaves them out (sparse index).
 *
 *   gsi1 (owner lookups)  api keys of a workspace · send-check per phone+template ·
 *                         delivery events per phone · conversations by activity
 *   gsi2 (time windows)   pending dispatches (reconciler) · sent dispatches per WIB day ·
 *                         tag links per tag
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  indexes: {
    gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  },
} as const;

export type IndexName = keyof typeof tableDefinition.indexes;

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Primary keys by entity. `ws` always comes from the API key, never from the request. */
export const keys = {
  apiKey: (hash: string): ItemKey => ({ pk: `KEY#${hash}`, sk: 'KEY' }),
  workspace: (ws: string): ItemKey => ({ pk: `WS#${ws}`, sk: 'WS' }),
  template: (ws: string, templateId: string): ItemKey => ({ pk: `WS#${ws}`, sk: `TPL#${templateId}` }),
  templateVersion: (ws: string, versionId: string): ItemKey => ({ pk: `WS#${ws}`, sk: `TPLV#${versionId}` }),
  /** Read by id alone; the item's workspaceId is compared, so a foreign id reads as missing. */
  dispatch: (dispatchId: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: 'DSP' }),
  idempotency: (ws: string, key: string): ItemKey => ({ pk: `IDEM#${ws}#${key}`, sk: 'IDEM' }),
  sendRate: (ws: string, minute: number): ItemKey => ({ pk: `RATE#${ws}#${minute}`, sk: 'RATE' }),
  /** One send of a template to a number per WIB day, for workspaces with `dedupe: wib-day`. */
  dailySend: (ws: string, day: string, phone: string, templateId: string): ItemKey => ({ pk: `DEDUPE#${ws}#${day}#${phone}#${templateId}`, sk: 'DEDUPE' }),
  conversation: (ws: string, conversationId: string): ItemKey => ({ pk: `WS#${ws}#CONV#${conversationId}`, sk: 'CONV' }),
  /** One per dispatch and event status (ACCEPTED, DELIVERED, REJECTED): written once, whatever the retries. */
  deliveryEvent: (dispatchId: string, status: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: `EVT#${status}` }),
  /** One per dispatch and tracking tag, written when the dispatch first counts for reports. */
  tagLink: (dispatchId: string, tag: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: `TAG#${tag}` }),
  /** Summary rollup: per tag, WIB day and template. */
  tagRollup: (ws: string, tag: string, day: string, templateId: string): ItemKey => ({ ...prefixes.rollupsOfTag(ws, tag), sk: `${day}#${templateId}` }),
  /** Per-day count of a workspace's dispatches that counted as sent, tagged or not (WORKSPACE-scope totals). */
  dayRollup: (ws: string, day: string): ItemKey => ({ ...prefixes.daysOfWorkspace(ws), sk: day }),
  /** Tag discovery rollup: per WIB day and tag. */
  dayTagRollup: (ws: string, day: string, tag: string): ItemKey => ({ ...prefixes.tagsOfDay(ws, day), sk: tag }),
  /** Which workspace owns a WhatsApp business phone number (for inbound messages). */
  whatsappNumber: (phoneNumberId: string): ItemKey => ({ pk: `WANUM#${phoneNumberId}`, sk: 'WANUM' }),
  conversationMessage: (ws: string, conversationId: string, createdAt: string, messageId: string): ItemKey => ({
    pk: `WS#${ws}#CONV#${conversationId}`,
    sk: `MSG#${createdAt}#${messageId}`,
  }),
} as const;

/** Partition and sort-key prefixes that queries name. */
export const prefixes = {
  templatesOfWorkspace: (ws: string) => ({ pk: `WS#${ws}`, skPrefix: 'TPL#' }),
  apiKeysOfWorkspace: (ws: string) => ({ gsi1pk: `WS#${ws}#KEYS`, gsi1skPrefix: 'KEY#' }),
  deliveryEventsOfPhone: (ws: string, phone: string) => ({ gsi1pk: `WS#${ws}#P#${phone}` }),
  sendsOfTemplateToPhone: (ws: string, phone: string, templateId: string) => ({ gsi1pk: `WS#${ws}#P#${phone}#T#${templateId}` }),
  pendingShard: (shard: number) => ({ gsi2pk: `PENDING#${shard}` }),
  tagsOfDay: (ws: string, day: string) => ({ pk: `WS#${ws}#RD#${day}` }),
  rollupsOfTag: (ws: string, tag: string) => ({ pk: `WS#${ws}#RT#${tag}` }),
  daysOfWorkspace: (ws: string) => ({ pk: `WS#${ws}#RW` }),
  sentOnDay: (ws: string, day: string) => ({ gsi2pk: `WS#${ws}#D#${day}` }),
  linksOfTag: (ws: string, tag: string) => ({ gsi2pk: `WS#${ws}#TAG#${tag}` }),
} as const;

export const PENDING_SHARDS = 4;
const pendingShardOf = (dispatchId: string) => parseInt(dispatchId.slice(-2), 16) % PENDING_SHARDS;

/** Index keys by entity. */
export const indexKeys = {
  apiKey: (ws: string, keyId: string) => ({ gsi1pk: `WS#${ws}#KEYS`, gsi1sk: `KEY#${keyId}` }),
  /** Send-check: a workspace's dispatches of one template to one number, newest first. */
  dispatchSendCheck: (ws: string, phone: string, templateId: string, createdAt: string) => ({ ...prefixes.sendsOfTemplateToPhone(ws, phone, templateId), gsi1sk: createdAt }),
  /** Delivery events of a phone number, in time order. */
  deliveryEventByPhone: (ws: string, phone: string, occurredAt: string, dispatchId: string, status: string) => ({
    ...prefixes.deliveryEventsOfPhone(ws, phone),
    gsi1sk: `${occurredAt}#${dispatchId}#${status}`,
  }),
  /**
   * A dispatch not yet settled (queued or processing), for the reconciler. Sharded so no one
   * partition takes every send. Replaced by `sentDispatchByDay` once the dispatch counts as sent.
   */
  pendingDispatch: (dispatchId: string, since: string) => ({ ...prefixes.pendingShard(pendingShardOf(dispatchId)), gsi2sk: `${since}#${dispatchId}` }),
  /** WORKSPACE-scope report list: dispatches that became SENT or DELIVERED, by WIB day. */
  sentDispatchByDay: (ws: string, day: string, createdAt: string, dispatchId: string) => ({ ...prefixes.sentOnDay(ws, day), gsi2sk: `${createdAt}#${dispatchId}` }),
  /** Report list by tag. */
  tagLink: (ws: string, tag: string, createdAt: string, dispatchId: string) => ({ ...prefixes.linksOfTag(ws, tag), gsi2sk: `${createdAt}#${dispatchId}` }),
  /** Conversation list: a workspace's conversations by last activity. */
  conversationActivity: (ws: string, lastMessageAt: string, conversationId: string) => ({ gsi1pk: `WS#${ws}#CONVS`, gsi1sk: `${lastMessageAt}#${conversationId}` }),
} as const;

/** Every stored item names its entity, so an item is self-describing in a raw table dump. */
export type Entity =
  | 'workspace'
  | 'apiKey'
  | 'template'
  | 'templateVersion'
  | 'dispatch'
  | 'idempotencyRecord'
  | 'sendRate'
  | 'dailySend'
  | 'conversation'
  | 'conversationMessage'
  | 'deliveryEvent'
  | 'tagLink'
  | 'tagRollup'
  | 'dayTagRollup'
  | 'dayRollup'
  | 'whatsappNumber';
