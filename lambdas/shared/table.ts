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
 *   gsi2 (time windows)   sent dispatches per WIB day · tag links per tag
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
  conversationMessage: (ws: string, conversationId: string, createdAt: string, messageId: string): ItemKey => ({
    pk: `WS#${ws}#CONV#${conversationId}`,
    sk: `MSG#${createdAt}#${messageId}`,
  }),
} as const;

/** Partition and sort-key prefixes that queries name. */
export const prefixes = {
  templatesOfWorkspace: (ws: string) => ({ pk: `WS#${ws}`, skPrefix: 'TPL#' }),
  apiKeysOfWorkspace: (ws: string) => ({ gsi1pk: `WS#${ws}#KEYS`, gsi1skPrefix: 'KEY#' }),
} as const;

/** Index keys by entity. */
export const indexKeys = {
  apiKey: (ws: string, keyId: string) => ({ gsi1pk: `WS#${ws}#KEYS`, gsi1sk: `KEY#${keyId}` }),
  /** Send-check: a workspace's dispatches of one template to one number, newest first. */
  dispatchSendCheck: (ws: string, phone: string, templateId: string, createdAt: string) => ({ gsi1pk: `WS#${ws}#P#${phone}#T#${templateId}`, gsi1sk: createdAt }),
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
  | 'conversationMessage';
