/**
 * The single-table schema: attribute names, indexes and the key builders every repository uses.
 * The CDK table (lib/constructs/messaging-table.ts) and the local bootstrap (lib/local/bootstrap.ts)
 * are both built from `tableDefinition`, so the deployed and local tables cannot drift.
 *
 * The GSIs are overloaded: each entity puts its own access pattern's keys in gsiNpk/gsiNsk,
 * and an entity without that pattern simply leaves them out (sparse index).
 *
 *   gsi1 (owner lookups)  api keys of a workspace · conversations by activity · WhatsApp
 *                         Business Accounts (the scheduled template sync) · what was written
 *                         before decision 101: delivery events per phone (and before decision
 *                         100 dispatches' send-check entries, read by nothing since decision 115)
 *   gsi2 (time windows)   what was written before decision 104: pending dispatches, sent
 *                         dispatches per WIB day (each a whole copy of its dispatch); before
 *                         decision 102: tag links per tag
 *   gsi3 (numbers)        what was written before decision 115: a workspace's dispatches to a
 *                         number, keys only (decision 100). Read by nothing now: send-check reads
 *                         the conversation's messages; kept so a rollback finds it
 *   gsi4 (report entries) pending dispatches (reconciler) · sent dispatches per WIB day: only the
 *                         report row's fields, none of which a claim, a price or a read receipt
 *                         changes, so those writes leave the index alone (decision 104)
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  /** The stream the webhook outbox publisher reads (decision 78): new images, so an outbox insert carries its event. */
  streamView: 'NEW_IMAGE',
  /**
   * What each index carries of an item: every attribute where its readers parse whole items from
   * it; only the keys where they read the items themselves; the attributes its readers answer
   * with where those change less often than the item. A change that leaves the keys and the
   * projected attributes as they were writes nothing to the index.
   */
  indexes: {
    gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    gsi3: { partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'KEYS_ONLY' },
    /**
     * A dispatch row of the report list (lambdas/domain/reports/dispatch-list.ts), its status
     * told by `deliveredAt`: not `status`, which the claim changes, nor `pricing` or `readAt`.
     * `failureCode`, which only a failure sets, marks an entry a failure left behind (decision 104).
     */
    gsi4: {
      partitionKey: 'gsi4pk',
      sortKey: 'gsi4sk',
      projection: 'INCLUDE',
      nonKeyAttributes: ['dispatchId', 'to', 'templateId', 'templateName', 'source', 'apiClient', 'trackingTags', 'creditCost', 'amountRupiah', 'createdAt', 'sentAt', 'deliveredAt', 'failureCode'],
    },
  },
} as const;

export type IndexName = keyof typeof tableDefinition.indexes;
export type IndexDefinition = (typeof tableDefinition.indexes)[IndexName];

/** The attributes an index entry carries beside the table's and the index's keys (all of them for `ALL`). */
export const projectedAttributes = (index: IndexDefinition): readonly string[] | 'ALL' =>
  index.projection === 'ALL' ? 'ALL' : index.projection === 'INCLUDE' ? index.nonKeyAttributes : [];

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Primary keys by entity. `ws` always comes from the API key, never from the request. */
export const keys = {
  apiKey: (hash: string): ItemKey => ({ pk: `KEY#${hash}`, sk: 'KEY' }),
  workspace: (ws: string): ItemKey => ({ pk: `WS#${ws}`, sk: 'WS' }),
  template: (ws: string, templateId: string): ItemKey => ({ pk: partitions.templatesOfWorkspace(ws).value, sk: `TPL#${templateId}` }),
  templateVersion: (ws: string, versionId: string): ItemKey => ({ pk: `WS#${ws}`, sk: `TPLV#${versionId}` }),
  /** Read by id alone; the item's workspaceId is compared, so a foreign id reads as missing. */
  dispatch: (dispatchId: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: 'DSP' }),
  idempotency: (ws: string, key: string): ItemKey => ({ pk: `IDEM#${ws}#${key}`, sk: 'IDEM' }),
  /** The same key on a webhook endpoint's create or rotation: its own item, so a send's and an endpoint request's never meet (decision 197). */
  endpointIdempotency: (ws: string, key: string): ItemKey => ({ pk: `IDEM#${ws}#${key}`, sk: 'WHEP' }),
  sendRate: (ws: string, minute: number): ItemKey => ({ pk: `RATE#${ws}#${minute}`, sk: 'RATE' }),
  /** The sends a WhatsApp number was offered in one second (epoch seconds), for its pace (lambdas/domain/delivery/number-pace.ts). */
  numberPace: (number: string, second: number): ItemKey => ({ pk: `PACE#${number}#${second}`, sk: 'PACE' }),
  /** Until when (epoch seconds) a WhatsApp number's pace has held deliveries back, for the reconciler (decision 241). */
  numberPaceHold: (number: string): ItemKey => ({ pk: `PACE#${number}`, sk: 'HELD' }),
  /** One send of a template to a number per WIB day, for workspaces with `dedupe: wib-day`. */
  dailySend: (ws: string, day: string, phone: string, templateId: string): ItemKey => ({ pk: `DEDUPE#${ws}#${day}#${phone}#${templateId}`, sk: 'DEDUPE' }),
  conversation: (ws: string, conversationId: string): ItemKey => ({ pk: partitions.messagesOfConversation(ws, conversationId).value, sk: 'CONV' }),
  /**
   * One per dispatch and event status (ACCEPTED, DELIVERED, REJECTED), in its number's partition by
   * time, so delivery-status reads the table and no index copies it (decision 101). Named by the
   * status move it tells of, whose condition lets it happen once, and written from that move's
   * stream record (decision 112).
   */
  deliveryEvent: (ws: string, phone: string, occurredAt: string, dispatchId: string, status: string): ItemKey => ({
    pk: partitions.eventsOfPhone(ws, phone).value,
    sk: `${occurredAt}#${dispatchId}#${status}`,
  }),
  /**
   * One per dispatch and tracking tag, written when the dispatch first counts for reports, in its
   * tag's partition by creation, so the report list reads the table and no index copies it (decision 102).
   */
  tagLink: (ws: string, tag: string, createdAt: string, dispatchId: string): ItemKey => ({ pk: partitions.linksOfTag(ws, tag).value, sk: `${createdAt}#${dispatchId}` }),
  /** A tag link as written before decision 102: under its dispatch, indexed by tag on gsi2. Only ever deleted now. */
  tagLinkUnderDispatch: (dispatchId: string, tag: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: `TAG#${tag}` }),
  /** The reconciler's note that a dead attempt of the dispatch is due `unknown` (decision 163). */
  deadAttemptNote: (dispatchId: string, attemptStartedAt: string): ItemKey => ({ pk: `DSP#${dispatchId}`, sk: `DEAD#${attemptStartedAt}` }),
  /** Where the reconciler's last run stopped reading a pending shard it could not read to its end (decision 210). */
  reconcilerPosition: (shard: number): ItemKey => ({ pk: `RECONCILE#${shard}`, sk: 'POSITION' }),
  /** Summary rollup: per tag, WIB day and template, in `ROLLUP_SHARDS` shards. */
  tagRollup: (ws: string, tag: string, day: string, templateId: string, shard = 0): ItemKey => ({ pk: partitions.rollupsOfTag(ws, tag).value, sk: rollupShard(`${day}#${templateId}`, shard) }),
  /** Per-day count of a workspace's dispatches that counted as sent, tagged or not (WORKSPACE-scope totals), in `ROLLUP_SHARDS` shards. */
  dayRollup: (ws: string, day: string, shard = 0): ItemKey => ({ pk: partitions.daysOfWorkspace(ws).value, sk: rollupShard(day, shard) }),
  /** Tag discovery rollup: per WIB day and tag, in `ROLLUP_SHARDS` shards. */
  dayTagRollup: (ws: string, day: string, tag: string, shard = 0): ItemKey => ({ pk: partitions.tagsOfDay(ws, day).value, sk: withinSortKey(rollupShard(tag, shard), tag) }),
  /**
   * That the report projection wrote a part of a stream shard's window's sums (decision 113): the
   * window's start, its first record (a window cut short by Lambda starts again with the same
   * start) and the part (sums beyond one transaction are split in a fixed order).
   */
  reportWindow: (shardId: string, windowStart: string, firstSequenceNumber: string, part: number): ItemKey => ({ pk: `RPW#${shardId}`, sk: `${windowStart}#${firstSequenceNumber}#${part}` }),
  /** That an operator's `reports rebuild` of a workspace's WIB day is running: one at a time (decision 180). */
  reportRebuild: (ws: string, day: string): ItemKey => ({ pk: `REBUILD#${ws}#${day}`, sk: 'REBUILD' }),
  /** Which workspace owns a WhatsApp business phone number (for inbound messages). */
  whatsappNumber: (phoneNumberId: string): ItemKey => ({ pk: `WANUM#${phoneNumberId}`, sk: 'WANUM' }),
  /** How far the provider's reports on a sending number have come (lambdas/domain/delivery/report-evidence.ts). */
  numberReports: (phoneNumberId: string): ItemKey => ({ pk: `WANUM#${phoneNumberId}`, sk: 'REPORTED' }),
  /** When WhatsApp last held a send of a template from a sending number (lambdas/domain/delivery/template-pacing.ts). */
  templatePacing: (phoneNumberId: string, templateId: string): ItemKey => ({ pk: `WANUM#${phoneNumberId}`, sk: `PACED#${templateId}` }),
  /** Which workspace owns a WhatsApp Business Account (template sync, account-level webhooks). */
  whatsappBusinessAccount: (businessAccountId: string): ItemKey => ({ pk: `WABA#${businessAccountId}`, sk: 'WABA' }),
  /** A number that opted out of the workspace's marketing messages ("Stop promotions"). */
  marketingOptOut: (ws: string, phone: string): ItemKey => ({ pk: partitions.optOutsOfWorkspace(ws).value, sk: `OPTOUT#${phone}` }),
  /** When the number last resumed the workspace's marketing messages in WhatsApp: an older stop arriving late changes nothing (decision 151). */
  marketingResume: (ws: string, phone: string): ItemKey => ({ pk: partitions.optOutsOfWorkspace(ws).value, sk: `RESUMED#${phone}` }),
  /**
   * That a customer's number changed from `phone` at `movedAt` (WhatsApp's time), beside the
   * opt-outs: the customer's word on the old number from before then is theirs on the new (decision 226).
   */
  numberMove: (ws: string, phone: string, movedAt: string): ItemKey => ({ pk: partitions.optOutsOfWorkspace(ws).value, sk: `MOVED#${phone}#${movedAt}` }),
  /** An event waiting for the outbox publisher: written with the change it tells of, read from the table's stream. */
  webhookOutbox: (eventId: string): ItemKey => ({ pk: `OUTBOX#${eventId}`, sk: 'OUTBOX' }),
  /** One event's deliveries to one endpoint (attempts, last answer, next try); event ids sort by time. */
  webhookDelivery: (ws: string, endpointId: string, eventId: string): ItemKey => ({ pk: partitions.deliveriesOfEndpoint(ws, endpointId).value, sk: `DLV#${eventId}` }),
  /** Since when an endpoint's deliveries have been failing (absent while they succeed), beside its deliveries. */
  webhookEndpointHealth: (ws: string, endpointId: string): ItemKey => ({ pk: partitions.deliveriesOfEndpoint(ws, endpointId).value, sk: 'HEALTH' }),
  /** Where a WhatsApp message id (wamid) belongs: our dispatch, or a customer's message in its conversation. */
  providerMessage: (wamid: string): ItemKey => ({ pk: `WAMID#${wamid}`, sk: 'WAMID' }),
  /**
   * The number WhatsApp gave with a customer's business-scoped user id (BSUID) in the workspace: a
   * BSUID is per business portfolio, which may hold several workspaces, each with its own
   * conversations. Its own partition: written with nearly every inbound message.
   */
  userNumber: (ws: string, userId: string): ItemKey => ({ pk: `WS#${ws}#USER#${userId}`, sk: 'NUMBER' }),
  /** A message in its conversation, at the time it stands there (`placedAt`, conversation-item.ts; a send's `createdAt`). */
  conversationMessage: (ws: string, conversationId: string, placedAt: string, messageId: string): ItemKey => ({
    pk: partitions.messagesOfConversation(ws, conversationId).value,
    sk: `MSG#${placedAt}#${messageId}`,
  }),
  /** Where a workspace's events are posted; its endpoints share one partition, so one Query lists them. */
  webhookEndpoint: (ws: string, endpointId: string): ItemKey => ({ pk: partitions.webhookEndpointsOfWorkspace(ws).value, sk: `WHE#${endpointId}` }),
  /** How many endpoints the workspace has, kept beside them to enforce the cap in the create transaction. */
  webhookEndpointCount: (ws: string): ItemKey => ({ pk: partitions.webhookEndpointsOfWorkspace(ws).value, sk: 'COUNT' }),
} as const;

/** Partitions that queries name, each on the table or the index that holds it. */
const partitions = {
  templatesOfWorkspace: (ws: string): Partition => ({ on: 'table', value: `WS#${ws}` }),
  messagesOfConversation: (ws: string, conversationId: string): Partition => ({ on: 'table', value: `WS#${ws}#CONV#${conversationId}` }),
  tagsOfDay: (ws: string, day: string): Partition => ({ on: 'table', value: `WS#${ws}#RD#${day}` }),
  rollupsOfTag: (ws: string, tag: string): Partition => ({ on: 'table', value: `WS#${ws}#RT#${tag}` }),
  daysOfWorkspace: (ws: string): Partition => ({ on: 'table', value: `WS#${ws}#RW` }),
  optOutsOfWorkspace: (ws: string): Partition => ({ on: 'table', value: `WS#${ws}#OPTOUTS` }),
  webhookEndpointsOfWorkspace: (ws: string): Partition => ({ on: 'table', value: `WS#${ws}#WHE` }),
  deliveriesOfEndpoint: (ws: string, endpointId: string): Partition => ({ on: 'table', value: `WS#${ws}#WHD#${endpointId}` }),
  apiKeysOfWorkspace: (ws: string): Partition<'gsi1'> => ({ on: 'gsi1', value: `WS#${ws}#KEYS` }),
  eventsOfPhone: (ws: string, phone: string): Partition => ({ on: 'table', value: `WS#${ws}#EVT#${phone}` }),
  /** Delivery events written before decision 101 (each kept under its dispatch, indexed here by number). */
  deliveryEventsOfPhone: (ws: string, phone: string): Partition<'gsi1'> => ({ on: 'gsi1', value: `WS#${ws}#P#${phone}` }),
  conversationsByActivity: (ws: string): Partition<'gsi1'> => ({ on: 'gsi1', value: `WS#${ws}#CONVS` }),
  /** Every workspace's account in one partition: one item per account, read once per sync run. */
  businessAccounts: (): Partition<'gsi1'> => ({ on: 'gsi1', value: 'WABAS' }),
  pendingShard: (shard: number): Partition<'gsi4'> => ({ on: 'gsi4', value: `PENDING#${shard}` }),
  sentOnDay: (ws: string, day: string): Partition<'gsi4'> => ({ on: 'gsi4', value: `WS#${ws}#D#${day}` }),
  /** Dispatches that entered these before decision 104 (whole copies, on gsi2), until they move. */
  indexedPendingShard: (shard: number): Partition<'gsi2'> => ({ on: 'gsi2', value: `PENDING#${shard}` }),
  indexedSentOnDay: (ws: string, day: string): Partition<'gsi2'> => ({ on: 'gsi2', value: `WS#${ws}#D#${day}` }),
  linksOfTag: (ws: string, tag: string): Partition => ({ on: 'table', value: `WS#${ws}#TAG#${tag}` }),
  /** Tag links written before decision 102 (each kept under its dispatch, indexed here by tag). */
  indexedLinksOfTag: (ws: string, tag: string): Partition<'gsi2'> => ({ on: 'gsi2', value: `WS#${ws}#TAG#${tag}` }),
} as const;

interface Partition<On extends 'table' | IndexName = 'table' | IndexName> {
  on: On;
  value: string;
}

/** How a query bounds the sort key within its partition. */
export type SortKeyCondition = { equals: string } | { beginsWith: string } | { between: readonly [string, string] } | { before: string };

/** The parts of a QueryCommand that say where to read: the index (if any) and the key condition. */
export interface KeyCondition {
  IndexName?: IndexName;
  KeyConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, string>;
}

function keyCondition(partition: Partition, sort?: SortKeyCondition): KeyCondition {
  const attributes = partition.on === 'table' ? tableDefinition : tableDefinition.indexes[partition.on];
  const names = { '#pk': attributes.partitionKey, ...(sort ? { '#sk': attributes.sortKey } : {}) };
  const values: Record<string, string> = { ':pk': partition.value };
  let sortExpression = '';
  if (sort && 'equals' in sort) [sortExpression, values[':sk']] = ['#sk = :sk', sort.equals];
  if (sort && 'beginsWith' in sort) [sortExpression, values[':prefix']] = ['begins_with(#sk, :prefix)', sort.beginsWith];
  if (sort && 'before' in sort) [sortExpression, values[':before']] = ['#sk < :before', sort.before];
  if (sort && 'between' in sort) [sortExpression, values[':from'], values[':to']] = ['#sk BETWEEN :from AND :to', ...sort.between];
  return {
    ...(partition.on === 'table' ? {} : { IndexName: partition.on }),
    KeyConditionExpression: sortExpression ? `#pk = :pk AND ${sortExpression}` : '#pk = :pk',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Every access pattern a query names: where it reads (table or index) and its key condition,
 * spread into a QueryCommand. The only place index names appear outside `tableDefinition`.
 */
export const accessPatterns = {
  templatesOfWorkspace: (ws: string) => keyCondition(partitions.templatesOfWorkspace(ws), { beginsWith: 'TPL#' }),
  /**
   * A conversation's messages, in time order (sort keys are `MSG#<placedAt>#<messageId>`), those
   * placed in [start, end) when `range` is given: an exclusive `end` instant still sorts after
   * every message before it.
   */
  messagesOfConversation: (ws: string, conversationId: string, range?: { start: string; end: string }) =>
    keyCondition(partitions.messagesOfConversation(ws, conversationId), range ? { between: [`MSG#${range.start}`, `MSG#${range.end}`] } : { beginsWith: 'MSG#' }),
  /** A WIB day's tag rollups, optionally only the tags starting with `prefix` (and other tags' shards whose keys do: compare `trackingTag`). */
  tagsOfDay: (ws: string, day: string, prefix?: string) => keyCondition(partitions.tagsOfDay(ws, day), prefix ? { beginsWith: prefix } : undefined),
  /** A tag's rollups of WIB days `from`..`to`: sort keys are `<day>#<templateId>` and its shards', and "~" sorts after every id character. */
  rollupsOfTag: (ws: string, tag: string, from: string, to: string) => keyCondition(partitions.rollupsOfTag(ws, tag), { between: [from, `${to}#~`] }),
  /** A workspace's per-day sent counts of WIB days `from`..`to`: sort keys are `<day>` and its shards'. */
  daysOfWorkspace: (ws: string, from: string, to: string) => keyCondition(partitions.daysOfWorkspace(ws), { between: [from, `${to}#~`] }),
  /** A workspace's marketing opt-outs, by number. */
  optOutsOfWorkspace: (ws: string) => keyCondition(partitions.optOutsOfWorkspace(ws), { beginsWith: 'OPTOUT#' }),
  /** The changes of a number (E.164) from `since` on, by time: sort keys are `MOVED#<phone>#<movedAt>`, and "~" sorts after every time. */
  movesOfNumber: (ws: string, phone: string, since: string) => keyCondition(partitions.optOutsOfWorkspace(ws), { between: [`MOVED#${phone}#${since}`, `MOVED#${phone}#~`] }),
  /** A workspace's webhook endpoints (not their count item), by id. */
  webhookEndpointsOfWorkspace: (ws: string) => keyCondition(partitions.webhookEndpointsOfWorkspace(ws), { beginsWith: 'WHE#' }),
  /** An endpoint's deliveries, by event id (so by time); from `fromSortKey` on when given, and up to `toSortKey`. */
  deliveriesOfEndpoint: (ws: string, endpointId: string, fromSortKey?: string, toSortKey = 'DLV#~') =>
    keyCondition(partitions.deliveriesOfEndpoint(ws, endpointId), fromSortKey ? { between: [fromSortKey, toSortKey] } : { beginsWith: 'DLV#' }),
  apiKeysOfWorkspace: (ws: string) => keyCondition(partitions.apiKeysOfWorkspace(ws), { beginsWith: 'KEY#' }),
  apiKeyOfWorkspace: (ws: string, keyId: string) => keyCondition(partitions.apiKeysOfWorkspace(ws), { equals: indexKeys.apiKey(ws, keyId).gsi1sk }),
  /** Sort keys are `<occurredAt>#…`: an exclusive `end` instant still sorts after every event before it. */
  eventsOfPhone: (ws: string, phone: string, start: string, end: string) => keyCondition(partitions.eventsOfPhone(ws, phone), { between: [start, end] }),
  /** Events written before decision 101; the same sort keys. */
  deliveryEventsOfPhone: (ws: string, phone: string, start: string, end: string) => keyCondition(partitions.deliveryEventsOfPhone(ws, phone), { between: [start, end] }),
  conversationsByActivity: (ws: string) => keyCondition(partitions.conversationsByActivity(ws)),
  /** Every WhatsApp Business Account a workspace names, by account id. */
  businessAccounts: () => keyCondition(partitions.businessAccounts()),
  /** A shard's pending dispatches not touched since `cutoff`: report entries, which name their dispatch. */
  pendingBefore: (shard: number, cutoff: string) => keyCondition(partitions.pendingShard(shard), { before: cutoff }),
  /** A WIB day's sent dispatches, as report entries; sort keys are `<createdAt>#<dispatchId>`. */
  sentOnDay: (ws: string, day: string) => keyCondition(partitions.sentOnDay(ws, day)),
  /** Pending dispatches written before decision 104, whole; the same sort keys. */
  indexedPendingBefore: (shard: number, cutoff: string) => keyCondition(partitions.indexedPendingShard(shard), { before: cutoff }),
  /** Sent dispatches written before decision 104, whole; the same sort keys. */
  indexedSentOnDay: (ws: string, day: string) => keyCondition(partitions.indexedSentOnDay(ws, day)),
  /** A tag's links created in [start, end]: sort keys are `<createdAt>#<dispatchId>`. */
  linksOfTag: (ws: string, tag: string, start: string, end: string) => keyCondition(partitions.linksOfTag(ws, tag), { between: [start, end] }),
  /** Tag links written before decision 102; the same sort keys. */
  indexedLinksOfTag: (ws: string, tag: string, start: string, end: string) => keyCondition(partitions.indexedLinksOfTag(ws, tag), { between: [start, end] }),
} as const;

/** An entry's keys in the index its partition is on. */
const indexKey = <I extends IndexName>(partition: Partition<I>, sort: string) => {
  const { partitionKey, sortKey } = tableDefinition.indexes[partition.on];
  return { [partitionKey]: partition.value, [sortKey]: sort } as Record<(typeof tableDefinition.indexes)[I]['partitionKey' | 'sortKey'], string>;
};

export const PENDING_SHARDS = 4;
const pendingShardOf = (dispatchId: string) => parseInt(dispatchId.slice(-2), 16) % PENDING_SHARDS;

/**
 * Each rollup is spread over shards, so writers at once wait on one another only within a shard
 * (decision 85). Until decision 113 the shard was chosen by dispatch id, each first report adding
 * to its rollups in its own transaction; now each stream shard's window sums go to the shard of
 * that stream shard, one write per rollup a window. Readers sum every shard, whoever wrote it.
 * Shard 0 keeps the unsharded key, so items written before sharding read as shard 0. The other
 * shards' keys end in a space: tracking tags are trimmed, so no tag's key, sharded or not, can be
 * another tag's shard.
 */
export const ROLLUP_SHARDS = 8;
export const rollupShardOfStreamShard = (shardId: string) => [...shardId].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7) % ROLLUP_SHARDS;
const rollupShard = (sortKey: string, shard: number) => (shard === 0 ? sortKey : `${sortKey}#${shard} `);

/**
 * DynamoDB refuses a sort key over 1024 bytes (and a partition key over 2048), and a window of the
 * report projection holding one was refused for good. A tracking tag may be 256 characters of four
 * bytes each, 1024 bytes: its own key fits, a shard's suffix does not. Such a tag's rollups stay in
 * shard 0 (its writers then wait on one another, for the few tags that long), and `keyFits` tells
 * which keys of older shapes (a tag link before decision 102) could never have been written.
 */
export const keyFits = (key: ItemKey) => Buffer.byteLength(key.pk, 'utf8') <= 2048 && Buffer.byteLength(key.sk, 'utf8') <= 1024;
const withinSortKey = (sortKey: string, unsharded: string) => (Buffer.byteLength(sortKey, 'utf8') <= 1024 ? sortKey : unsharded);

/** Index keys by entity. */
export const indexKeys = {
  apiKey: (ws: string, keyId: string) => indexKey(partitions.apiKeysOfWorkspace(ws), `KEY#${keyId}`),
  /**
   * A dispatch not yet settled (queued or processing), for the reconciler. Sharded so no one
   * partition takes every send. Replaced by `sentDispatchByDay` once the dispatch counts as sent.
   * Both are the dispatch's report entry (gsi4); one written before decision 104 sits on gsi2 under
   * the same keys (`reportEntryAttributes` names both, for the writes that move or drop it).
   */
  pendingDispatch: (dispatchId: string, since: string) => indexKey(partitions.pendingShard(pendingShardOf(dispatchId)), `${since}#${dispatchId}`),
  /** WORKSPACE-scope report list: dispatches that became SENT or DELIVERED, by WIB day. */
  sentDispatchByDay: (ws: string, day: string, createdAt: string, dispatchId: string) => indexKey(partitions.sentOnDay(ws, day), `${createdAt}#${dispatchId}`),
  /** Report list by tag, for links written before decision 102 (tests write such links; nothing else does). */
  indexedTagLink: (ws: string, tag: string, createdAt: string, dispatchId: string) => indexKey(partitions.indexedLinksOfTag(ws, tag), `${createdAt}#${dispatchId}`),
  /** The scheduled template sync's list of accounts. */
  businessAccount: (businessAccountId: string) => indexKey(partitions.businessAccounts(), businessAccountId),
  /** Conversation list: a workspace's conversations by last activity. */
  conversationActivity: (ws: string, lastMessageAt: string, conversationId: string) => indexKey(partitions.conversationsByActivity(ws), `${lastMessageAt}#${conversationId}`),
} as const;

/** The index attributes of a dispatch's report entry, in either index it may sit in: what a move out of one removes. */
export const reportEntryAttributes = (): string[] => [tableDefinition.indexes.gsi4, tableDefinition.indexes.gsi2].flatMap((index) => [index.partitionKey, index.sortKey]);

/** Every stored item names its entity, so an item is self-describing in a raw table dump. */
export type Entity =
  | 'workspace'
  | 'apiKey'
  | 'template'
  | 'templateVersion'
  | 'dispatch'
  | 'idempotencyRecord'
  | 'endpointIdempotencyRecord'
  | 'sendRate'
  | 'numberPace'
  | 'numberPaceHold'
  | 'dailySend'
  | 'conversation'
  | 'conversationMessage'
  | 'userNumber'
  | 'deliveryEvent'
  | 'webhookOutbox'
  | 'webhookDelivery'
  | 'webhookEndpointHealth'
  | 'tagLink'
  | 'tagRollup'
  | 'dayTagRollup'
  | 'dayRollup'
  | 'whatsappNumber'
  | 'numberReports'
  | 'templatePacing'
  | 'deadAttemptNote'
  | 'reconcilerPosition'
  | 'whatsappBusinessAccount'
  | 'marketingOptOut'
  | 'marketingResume'
  | 'numberMove'
  | 'providerMessage'
  | 'webhookEndpoint'
  | 'webhookEndpointCount'
  | 'reportRebuild';
