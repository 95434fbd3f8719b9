import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { batchGet } from '../../shared/batch-get';
import { accessPatterns, indexKeys, keys, reportEntryAttributes, tableDefinition } from '../../shared/table';
import type { Write } from '../../shared/writes';
import type { Pricing } from '../providers/whatsapp-webhook';
import { countsAsSent, eventsOfMove, eventTimes, isFirstReport, movesFrom, staysUnknown, type DeliveryEventStatus } from '../delivery/transitions';
import { wibDay } from '../time/wib';
import { templateParametersSchema } from '../templates/template-parameters';
import { DELIVERY_EVENTS_MADE, DISPATCH_ENTITY, dispatchStatuses, EVENT_MOVED, REPORTS_CHANGE_MADE, WAMID_MADE, type Dispatch, type DispatchStatus, type MovableEvent } from './dispatch';

/**
 * The dispatch item: its key and index entries, every write to it (create, status moves, the
 * enqueue failure, the reconciler's requeue) and its reading back. The delivery attempt's fields
 * (claim and release) are written by delivery/delivery-attempt.ts.
 */

// A default rather than a pipe through a transform: one schema run a field instead of four, on every read.
const nullable = <T extends z.ZodMiniType>(schema: T) => z._default(z.nullable(schema), null);

/**
 * A stored dispatch: exactly the attributes the item holds beside its keys (`dispatchItem` writes
 * these and no others). Null fields are left out of the item, so an absent one reads as null.
 * Items written before decision 92 also hold the send's variables, its rendered text, the
 * contact's name, the template version and the conversation id (now `conversationOfDispatch`):
 * they are read past, as is the `reportedAt` written until decision 109.
 */
const storedDispatchSchema = z.object({
  dispatchId: z.string().check(z.minLength(1)),
  workspaceId: z.string().check(z.minLength(1)),
  channel: z.literal('whatsapp'),
  to: z.string(),
  templateId: z.string(),
  templateName: z.string(),
  providerTemplateName: z.string(),
  language: z.string(),
  // Dispatches stored before the field (the first release that sent) read as none.
  bodyParameters: z._default(z.array(z.string()), []),
  templateParameters: z.optional(templateParametersSchema),
  tagIds: z.array(z.string()),
  trackingTags: z.array(z.string()),
  source: z.enum(['EXTERNAL_API', 'BROADCAST', 'INBOX']),
  apiClient: nullable(z.object({ id: z.string(), name: z.string() })),
  status: z.enum(dispatchStatuses),
  creditCost: z.number(),
  amountRupiah: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: nullable(z.string()),
  sentAtFromDelivery: z.optional(z.literal(true)),
  deliveredAt: nullable(z.string()),
  readAt: nullable(z.string()),
  // Pricing stored before Meta's `type` was kept reads it as null.
  pricing: nullable(z.object({ billable: z.nullable(z.boolean()), category: z.nullable(z.string()), pricingModel: z.nullable(z.string()), type: z._default(z.nullable(z.string()), null) })),
  failureCode: nullable(z.string()),
  // Dispatches stored before the field count from 0.
  sequence: z._default(z.int().check(z.gte(0)), 0),
  attempts: z.optional(z.number()),
  laterAnswers: z.optional(z.number()),
  outageAnswers: z.optional(z.number()),
  attemptStartedAt: z.optional(z.string()),
  givenBackAt: z.optional(z.string()),
  providerMessageId: z.optional(z.string()),
  senderPhoneNumberId: z.optional(z.string()),
  failedAt: z.optional(z.string()),
  pricedAt: z.optional(z.string()),
  marketing: z.optional(z.literal(true)),
}) satisfies z.ZodMiniType<Dispatch>;

/**
 * The stored dispatch's schema for some of its attributes: what an index entry or a projected read
 * of it holds. Built from the shape rather than by `z.pick`, whose code would add 1 KB to a bundle.
 */
export function storedDispatchFields<K extends keyof typeof storedDispatchSchema.shape>(names: readonly K[]) {
  return z.object(Object.fromEntries(names.map((name) => [name, storedDispatchSchema.shape[name]])) as Pick<typeof storedDispatchSchema.shape, K>);
}

const STORED_ATTRIBUTES = new Set(Object.keys(storedDispatchSchema.shape));

/** A stored item as a Dispatch: nullable fields null when absent. */
export function toDispatch(item: Record<string, unknown>): Dispatch {
  return parseItem(storedDispatchSchema, item, 'dispatch');
}

type ReportEntryField = (typeof tableDefinition.indexes.gsi4.nonKeyAttributes)[number];

/** A dispatch as its report entry carries it (gsi4's projection, decision 104): the report row's fields. */
export type ReportEntry = Pick<Dispatch, ReportEntryField>;

/**
 * The stored item: the dispatch's stored attributes, its key and its pending index entry. Null
 * fields are left out rather than stored as NULL, which `if_not_exists` would take as set. Every
 * byte counts: under 1 KB, each write of the item and of each index copy of it is
 * one unit rather than two (docs/cost.md).
 */
export function dispatchItem(dispatch: Dispatch) {
  const present = Object.fromEntries(Object.entries(dispatch).filter(([name, value]) => value !== null && STORED_ATTRIBUTES.has(name)));
  return {
    ...keys.dispatch(dispatch.dispatchId),
    ...indexKeys.pendingDispatch(dispatch.dispatchId, dispatch.createdAt),
    entity: DISPATCH_ENTITY,
    ...present,
  };
}

/** Creates the dispatch; refused if it exists (only an earlier try of the same send wrote it). */
export const dispatchCreate = (dispatch: Dispatch): Write => ({ Put: { Item: dispatchItem(dispatch), ConditionExpression: 'attribute_not_exists(pk)' } });

/** A workspace's dispatch; another workspace's id reads as missing. */
export async function getDispatch(workspaceId: string, dispatchId: string, store: Store = defaultStore()): Promise<Dispatch | undefined> {
  const dispatch = await getDispatchById(dispatchId, store);
  return dispatch?.workspaceId === workspaceId ? dispatch : undefined;
}

/** Any workspace's dispatch: for the delivery path, which is told ids by the queue and the provider. */
export async function getDispatchById(dispatchId: string, store: Store = defaultStore(), consistent = false): Promise<Dispatch | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.dispatch(dispatchId), ConsistentRead: consistent }));
  return Item ? toDispatch(Item) : undefined;
}

/** What a write makes beside the dispatch's own change, for the table's stream consumers to write. */
export interface ChangeMade {
  events?: readonly DeliveryEventStatus[];
  reports?: 1 | -1;
  /** The write records the dispatch's wamid for the first time. */
  wamid?: boolean;
  /** The event the write moved to its dispatch's new time, and the time it was at (decisions 200, 236). */
  moved?: { event: MovableEvent; from: string };
}

/**
 * Every write that changes the GET body (docs/api.md#message-status) counts `sequence` up, so the
 * stream record of that write is the change's `message.status.updated` event, its id made from the
 * dispatch and the sequence (decision 89). Every update of a dispatch item goes through here. The
 * event's time is the write's `updatedAt`; the two writes that leave `updatedAt` as it is (the
 * read receipt and Meta's pricing) pass `changedAt`, and the event takes the later of the two.
 * (Not a stamp on every write: 33 bytes on every write of an item near 1 KB can double its
 * units, as row 8 showed when it was tried.)
 *
 * `made` is what else the write makes: the delivery events (decision 112), the change of the
 * dispatch's standing in the reports (decision 113) and the wamid's item (decision 114). Each is
 * kept on the item (`DELIVERY_EVENTS_MADE`, `REPORTS_CHANGE_MADE`, `WAMID_MADE`) until the next
 * write, which sets its own or removes it, so each stream record names what exactly its change
 * made, and the stream's consumers write it.
 */
export function sequenceStep(changedAt?: string, made: ChangeMade = {}) {
  const events = made.events ?? [];
  const moved = made.moved && EVENT_MOVED[made.moved.event];
  const set = [
    '#sequence = if_not_exists(#sequence, :sequenceZero) + :sequenceStep',
    ...(changedAt ? ['changedAt = :changedAt'] : []),
    ...(events.length ? [`${DELIVERY_EVENTS_MADE} = :eventsMade`] : []),
    ...(made.reports ? [`${REPORTS_CHANGE_MADE} = :reportsMade`] : []),
    ...(made.wamid ? [`${WAMID_MADE} = :wamidMade`] : []),
    ...(moved ? [`${moved} = :movedFrom`] : []),
  ];
  return {
    names: { '#sequence': 'sequence' },
    values: {
      ':sequenceZero': 0,
      ':sequenceStep': 1,
      ...(changedAt ? { ':changedAt': changedAt } : {}),
      ...(events.length ? { ':eventsMade': [...events] } : {}),
      ...(made.reports ? { ':reportsMade': made.reports } : {}),
      ...(made.wamid ? { ':wamidMade': true } : {}),
      ...(made.moved ? { ':movedFrom': made.moved.from } : {}),
    },
    /** The write's UpdateExpression: its own SET and REMOVE parts (and an ADD) with the step's. */
    expression(ownSet: readonly string[], ownRemove: readonly string[] = [], add?: string): string {
      const remove = [
        ...ownRemove,
        ...(events.length ? [] : [DELIVERY_EVENTS_MADE]),
        ...(made.reports ? [] : [REPORTS_CHANGE_MADE]),
        ...(made.wamid ? [] : [WAMID_MADE]),
        ...Object.values(EVENT_MOVED).filter((name) => name !== moved),
      ];
      return `SET ${[...ownSet, ...set].join(', ')}${add ? ` ADD ${add}` : ''}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`;
    },
  };
}

/**
 * What a write that leaves the GET body as it was removes: what the last write made, which its
 * stream record must not name again. Such a write does not count `sequence` up: its stream record
 * repeats the dispatch's last event, id and all, which receivers de-duplicate (docs/api.md,
 * `webhook-id`), and names nothing made.
 */
export const madeAttributes = (): string[] => [DELIVERY_EVENTS_MADE, REPORTS_CHANGE_MADE, WAMID_MADE, ...Object.values(EVENT_MOVED)];

/** A change to the dispatch: its write, and the dispatch as the write leaves it. */
export interface DispatchChange {
  write: Write;
  after: Dispatch;
}

/**
 * The queue refused the message (docs/api.md#send-a-message): the dispatch becomes `failed` with
 * `enqueue_failed`. Only a dispatch still `queued` is touched.
 */
export function enqueueFailed(dispatch: Dispatch, now: Date): DispatchChange {
  const sequence = sequenceStep();
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(['#status = :failed', 'failureCode = :code', 'updatedAt = :now'], reportEntryAttributes()),
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: { ':failed': 'failed', ':queued': 'queued', ':code': 'enqueue_failed', ':now': now.toISOString(), ...sequence.values },
      },
    },
    after: { ...dispatch, status: 'failed', failureCode: 'enqueue_failed', updatedAt: now.toISOString(), sequence: dispatch.sequence + 1 },
  };
}

/** A status move as the dispatch item takes it. */
export interface StatusMove {
  to: DispatchStatus;
  /** When it happened at the provider (or now). */
  occurredAt: string;
  failureCode?: string;
  providerMessageId?: string;
  /** The number the provider took it on, from its answer to our send. */
  senderPhoneNumberId?: string;
  /** Meta's pricing, when the report that moves the dispatch brought a new one. */
  pricing?: Pricing;
  /** The provider's verdict the move tells of, for its delivery event (not our own bookkeeping). */
  event?: DeliveryEventStatus;
  /** The move settles this attempt only (its `attemptStartedAt`): refused once the dispatch holds another, or none. */
  ofAttempt?: string;
  /**
   * The move settles the dispatch's `ofClaim`-th claim (its `attempts` once that claim was taken):
   * refused once a later claim was taken, whether that one is in flight, given back or settled. Unlike
   * `ofAttempt` it outlives the claim's release, so the verdict of a claim the reconciler gave back
   * still lands while no other attempt has followed (decisions 161, 211). It lands only on what a claim
   * leaves (`processing`, `unknown`): a report that moved the dispatch on first stands (decision 237).
   */
  ofClaim?: number;
  /** The wamid's item is put already (the deliver consumer's, before its sent move: decision 196), so the move names none. */
  wamidItemPut?: true;
  /**
   * An `unknown` the provider's answer left (a timeout, a gateway's 502 or 504) with the provider's
   * answers leaving a retry: the attempt (its start, its claim's id) and the pending entry stay, so
   * the reconciler sends it again once the number's reports show WhatsApp never took it, as it does
   * a dead attempt (decision 227). Without it an `unknown` is settled for good.
   */
  judgedByReports?: true;
}

/**
 * The move's reports change (and its ACCEPTED event) is decided on the dispatch as read, so the
 * write holds it to what it read of `sentAt`: a first report only where none is (decision 105), a
 * later counting move only where one is; a move out of counting takes the dispatch back only
 * where one is, and names nothing only where none is. A stale read (a `failed` decided on a
 * dispatch read as `processing` that has since been sent) is refused and decided again, rather
 * than leaving a failed dispatch counted. A NULL `sentAt` is none: the first release that sent
 * stored its unset fields as NULLs, and its queued dispatches are delivered by this one.
 */
const sentAtCondition = (absent: boolean, values: Record<string, unknown>) => {
  if (!absent) return ' AND attribute_exists(sentAt)';
  values[':noSentAt'] = 'NULL';
  return ' AND (attribute_not_exists(sentAt) OR attribute_type(sentAt, :noSentAt))';
};

/** A move of one attempt's (`ofAttempt`, `ofClaim`) holds to that attempt, whatever was read. */
function attemptCondition(move: StatusMove, values: Record<string, unknown>): string {
  let condition = '';
  if (move.ofAttempt) {
    values[':attempt'] = move.ofAttempt;
    condition += ' AND attemptStartedAt = :attempt';
  }
  if (move.ofClaim !== undefined) {
    values[':claim'] = move.ofClaim;
    condition += ' AND attempts = :claim';
  }
  return condition;
}

/**
 * Moves the dispatch from a status the transition table allows (docs/api.md#dispatch-statuses), a claim's verdict only from
 * what its claim left (`movesFrom`, decision 237). The first move into a status that counts
 * in reports sets `sentAt` (guarded, so it happens once) and moves its report entry from
 * pending to its sent day (out of gsi2 for a dispatch that entered it there, decision 104); a move
 * out of reporting drops the entry. The delivery events it makes are named on the item, each at
 * the time it keeps (`sentAt`, `deliveredAt`, `failedAt`), for the stream consumer to write (decision 112),
 * and so is its change of standing in the reports, for the report projection (decision 113).
 * Those times are `at`: the move's `occurredAt`, moved up where it falls before what came first
 * (decision 22). A pricing the move brings keeps `occurredAt` itself as `pricedAt`, so that Meta's
 * statuses are ordered by Meta's times alone (decision 202).
 */
export function statusMove(dispatch: Dispatch, move: StatusMove, at: string, now: string): DispatchChange {
  if (staysUnknown(dispatch.status, move)) return unknownAgain(dispatch, move);
  const firstReport = isFirstReport(dispatch, move.to);
  // A late failure after sent takes the dispatch back out of the reports, which count only SENT or DELIVERED.
  const reports = firstReport ? 1 : dispatch.sentAt && !countsAsSent(move.to) ? -1 : undefined;
  // The move that first learns the wamid names it, for the stream consumer to put its item (decision
  // 114), unless its item is put already (decision 196).
  const wamid = Boolean(move.providerMessageId && !dispatch.providerMessageId && !move.wamidItemPut);
  const sequence = sequenceStep(undefined, { events: eventsOfMove(dispatch, move), ...(reports ? { reports } : {}), wamid });
  const set = ['#status = :to', 'updatedAt = :now'];
  const remove: string[] = [];
  const values: Record<string, unknown> = { ':to': move.to, ':now': now, ...sequence.values };
  const after: Dispatch = { ...dispatch, status: move.to, updatedAt: now, sequence: dispatch.sequence + 1 };

  if (countsAsSent(move.to)) {
    set.push(firstReport ? 'sentAt = :at' : 'sentAt = if_not_exists(sentAt, :at)');
    values[':at'] = at;
    after.sentAt ??= at;
  }
  if (firstReport && move.to === 'delivered') {
    // Rides on the write that sets sentAt: a `sent` after it may move sentAt back (decision 236).
    set.push('sentAtFromDelivery = :fromDelivery');
    values[':fromDelivery'] = true;
    after.sentAtFromDelivery = true;
  }
  if (move.to === 'delivered') {
    set.push('deliveredAt = :at');
    after.deliveredAt = at;
  }
  if (move.to === 'failed') {
    set.push('failedAt = :at');
    values[':at'] = at;
    after.failedAt = at;
  }
  if (move.failureCode) {
    set.push('failureCode = :code');
    values[':code'] = move.failureCode;
    after.failureCode = move.failureCode;
  }
  if (move.pricing && !olderPricing(dispatch, move.occurredAt)) {
    set.push('pricing = :pricing', 'pricedAt = :pricedAt');
    values[':pricing'] = move.pricing;
    values[':pricedAt'] = move.occurredAt;
    after.pricing = move.pricing;
    after.pricedAt = move.occurredAt;
  }
  if (move.providerMessageId) {
    // The first wamid stays: the one the provider answered with, or the first status that named it.
    set.push('providerMessageId = if_not_exists(providerMessageId, :pmid)');
    values[':pmid'] = move.providerMessageId;
    after.providerMessageId ??= move.providerMessageId;
  }
  if (move.senderPhoneNumberId) {
    set.push('senderPhoneNumberId = if_not_exists(senderPhoneNumberId, :sender)');
    values[':sender'] = move.senderPhoneNumberId;
    after.senderPhoneNumberId ??= move.senderPhoneNumberId;
  }
  // An `unknown` left to the number's reports keeps its attempt and its pending entry for the reconciler (decision 227).
  const judged = move.to === 'unknown' && move.judgedByReports === true && dispatch.attemptStartedAt !== undefined;
  if (move.to !== 'processing' && !judged) {
    remove.push('attemptStartedAt', 'attemptId');
    delete after.attemptStartedAt;
  }
  if (firstReport) {
    const entry = reportEntryMove(indexKeys.sentDispatchByDay(dispatch.workspaceId, wibDay(new Date(dispatch.createdAt)), dispatch.createdAt, dispatch.dispatchId));
    set.push(...entry.set);
    remove.push(...entry.remove);
    Object.assign(values, entry.values);
  } else if (!countsAsSent(move.to) && !judged) {
    // Failed, canceled or unknown: the reconciler has nothing more to do with it, nor the reports.
    remove.push(...reportEntryAttributes());
  }

  const fromList = movesFrom(move).map((status, i) => {
    values[`:from${i}`] = status;
    return `:from${i}`;
  });
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(set, remove),
        ConditionExpression: `#status IN (${fromList.join(', ')})${sentAtCondition(countsAsSent(move.to) ? firstReport : reports !== -1, values)}${attemptCondition(move, values)}${':pricedAt' in values ? ` AND ${PRICED_NO_LATER}` : ''}`,
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: values,
      },
    },
    after,
  };
}

/**
 * The provider's answer to an `unknown`'s retry was lost again (decision 227): it stays `unknown`,
 * the GET body as it was (no event). Left to the number's reports, it keeps the attempt and the
 * pending entry for the reconciler; on the provider's last answer it drops both, `unknown` for good.
 */
function unknownAgain(dispatch: Dispatch, move: StatusMove): DispatchChange {
  const values: Record<string, unknown> = { ':unknown': 'unknown' };
  const judged = move.judgedByReports === true;
  const remove = [...(judged ? [] : ['attemptStartedAt', 'attemptId', ...reportEntryAttributes()]), ...madeAttributes()];
  const after: Dispatch = { ...dispatch };
  if (!judged) delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: `REMOVE ${remove.join(', ')}`,
        ConditionExpression: `#status = :unknown AND attribute_exists(attemptStartedAt)${attemptCondition(move, values)}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      },
    },
    after,
  };
}

/**
 * The recipient read it (WhatsApp's `read`): recorded once, on a delivered dispatch (a read with
 * no delivered before it was moved to delivered first). Its status stays `delivered`.
 */
export function readReceipt(dispatch: Dispatch, readAt: string, now: string): DispatchChange {
  const sequence = sequenceStep(now);
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(['readAt = :at']),
        ConditionExpression: '#status = :delivered AND attribute_not_exists(readAt)',
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: { ':at': readAt, ':delivered': 'delivered', ...sequence.values },
      },
    },
    after: { ...dispatch, readAt, sequence: dispatch.sequence + 1 },
  };
}

/**
 * A report that came after a later one which moved the dispatch at its own time (WhatsApp's
 * webhooks are not ordered): the time `event` is at (`eventTimes`) goes back to `at`, when it
 * happened, and the event moves with it, named for the stream consumer to delete where it was and
 * put where it is now. A `delivered` after its `read` moves `deliveredAt` and DELIVERED (decision
 * 200), a `sent` after the `delivered` or `read` that set `sentAt` moves `sentAt` and ACCEPTED
 * (decision 236), and leaves `sentAt` the `sent`'s own, for no other `sent` to move. Made only on
 * the time it was decided on.
 */
export function eventTimeCorrection(dispatch: Dispatch, event: MovableEvent, from: string, at: string, now: string): DispatchChange {
  const field = eventTimes[event];
  const sequence = sequenceStep(now, { events: [event], moved: { event, from } });
  const after: Dispatch = { ...dispatch, [field]: at, sequence: dispatch.sequence + 1 };
  if (event === 'ACCEPTED') delete after.sentAtFromDelivery;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression([`${field} = :at`], event === 'ACCEPTED' ? ['sentAtFromDelivery'] : []),
        ConditionExpression: `#status = :delivered AND ${field} = :was`,
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: { ':at': at, ':was': from, ':delivered': 'delivered', ...sequence.values },
      },
    },
    after,
  };
}

/** Whether Meta's pricing says what the kept one says: every field, `type` too (a different one replaces it, decision 152). */
export const samePricing = (a: Pricing, b: Pricing | null | undefined): boolean =>
  !!b && a.billable === b.billable && a.category === b.category && a.pricingModel === b.pricingModel && a.type === b.type;

/**
 * Whether a status of `at` is older than the one whose pricing the dispatch keeps: Meta delivers a
 * POST again for days after a failed answer, with the pricing it had then, after later ones.
 */
const olderPricing = (dispatch: Dispatch, at: string): boolean => dispatch.pricedAt !== undefined && at < dispatch.pricedAt;

/** The write's side of `olderPricing`, for a dispatch priced since it was read. */
const PRICED_NO_LATER = '(attribute_not_exists(pricedAt) OR pricedAt <= :pricedAt)';

/**
 * Meta's pricing of the message, as the status of `pricedAt` gave it. Meta repeats it on every
 * status: only a pricing that differs, from a status no older than the kept one's, is written, so
 * the body changes only when it does.
 */
export function pricingChange(dispatch: Dispatch, pricing: Pricing, pricedAt: string, now: string): DispatchChange | undefined {
  if (samePricing(pricing, dispatch.pricing) || olderPricing(dispatch, pricedAt)) return undefined;
  const sequence = sequenceStep(now);
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression(['pricing = :pricing', 'pricedAt = :pricedAt']),
        ConditionExpression: `attribute_exists(pk) AND ${PRICED_NO_LATER}`,
        ExpressionAttributeNames: sequence.names,
        ExpressionAttributeValues: { ':pricing': pricing, ':pricedAt': pricedAt, ...sequence.values },
      },
    },
    after: { ...dispatch, pricing, pricedAt, sequence: dispatch.sequence + 1 },
  };
}

/**
 * The report entry's keys set to `entry`, and removed from the index it no longer sits in: a
 * dispatch written before decision 104 has its entry on gsi2, and leaves it at its next move.
 */
function reportEntryMove(entry: Record<string, string>): { set: string[]; remove: string[]; values: Record<string, string> } {
  return {
    set: Object.keys(entry).map((name) => `${name} = :${name}`),
    remove: reportEntryAttributes().filter((name) => !(name in entry)),
    values: Object.fromEntries(Object.entries(entry).map(([name, value]) => [`:${name}`, value])),
  };
}

/**
 * Moves the dispatch's pending entry to `now`, if it is still `status`: the reconciler queued it
 * again. An `unknown` given back to be sent again (decision 227) keeps its GET body as it was (no
 * event): `givenBackAt` is its clock, not `updatedAt`.
 */
export function requeueChange(dispatch: Dispatch, now: Date): DispatchChange {
  const entry = reportEntryMove(indexKeys.pendingDispatch(dispatch.dispatchId, now.toISOString()));
  if (dispatch.status === 'unknown') {
    return {
      write: {
        Update: {
          Key: keys.dispatch(dispatch.dispatchId),
          UpdateExpression: `SET ${[...entry.set, 'givenBackAt = :now'].join(', ')} ADD requeues :one REMOVE ${[...entry.remove, ...madeAttributes()].join(', ')}`,
          ConditionExpression: '#status = :unknown AND attribute_not_exists(attemptStartedAt) AND attribute_exists(givenBackAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...entry.values, ':now': now.toISOString(), ':one': 1, ':unknown': 'unknown' },
        },
      },
      after: { ...dispatch, givenBackAt: now.toISOString() },
    };
  }
  const sequence = sequenceStep();
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: sequence.expression([...entry.set, 'updatedAt = :now'], entry.remove, 'requeues :one'),
        ConditionExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status', ...sequence.names },
        ExpressionAttributeValues: {
          ...entry.values,
          ':now': now.toISOString(),
          ':one': 1,
          ':status': dispatch.status,
          ...sequence.values,
        },
      },
    },
    after: { ...dispatch, updatedAt: now.toISOString(), sequence: dispatch.sequence + 1 },
  };
}

/**
 * Gives back the attempt of an `unknown` the number's reports show WhatsApp never took (decision
 * 227): no attempt, the provider's answer counted (`laterAnswers`, decision 132), the pending entry
 * kept and `givenBackAt` set, from which the reconciler queues it once past its grace. It stays
 * `unknown` and its GET body as it was (no event: status never moves backwards, DESIGN.md §3); the
 * claim of its retry takes it as it is. Only while it is still `unknown` on that attempt: a report
 * for it settles it first.
 */
export function unansweredRetryChange(dispatch: Dispatch & { attemptStartedAt: string }, now: Date): DispatchChange {
  const after: Dispatch = { ...dispatch, givenBackAt: now.toISOString(), laterAnswers: (dispatch.laterAnswers ?? 0) + 1 };
  delete after.attemptStartedAt;
  return {
    write: {
      Update: {
        Key: keys.dispatch(dispatch.dispatchId),
        UpdateExpression: `SET givenBackAt = :now ADD laterAnswers :one REMOVE ${['attemptStartedAt', 'attemptId', ...madeAttributes()].join(', ')}`,
        ConditionExpression: '#status = :unknown AND attemptStartedAt = :mine',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':unknown': 'unknown', ':mine': dispatch.attemptStartedAt, ':now': now.toISOString(), ':one': 1 },
      },
    },
    after,
  };
}

/**
 * Takes a settled dispatch out of the pending entries. Only a function from before decision 104,
 * moving a dispatch during the deploy that brings it, leaves one there (it moves the gsi2 entry the
 * dispatch does not have); left, it would be read on every run and, oldest first, crowd out the
 * dispatches the reconciler is for. It also settles for good an `unknown` left to the number's
 * reports that never showed WhatsApp did not take it (decision 227): its attempt goes with the
 * entry (a settled dispatch has none to lose). The GET body does not change, so `sequence` does not count up:
 * the stream record repeats the dispatch's last event, id and all, which receivers de-duplicate
 * (docs/api.md, `webhook-id`), and names nothing made (what it names was its last move's).
 */
export function pendingEntryDrop(dispatchId: string, ofAttempt?: string): Write {
  const { partitionKey, sortKey } = tableDefinition.indexes.gsi4;
  return {
    Update: {
      Key: keys.dispatch(dispatchId),
      UpdateExpression: `REMOVE ${[partitionKey, sortKey, 'attemptStartedAt', 'attemptId', ...madeAttributes()].join(', ')}`,
      ConditionExpression: `begins_with(#entry, :pending) AND NOT #status IN (:queued, :processing)${ofAttempt ? ' AND attemptStartedAt = :attempt' : ''}`,
      ExpressionAttributeNames: { '#entry': partitionKey, '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'PENDING#', ':queued': 'queued', ':processing': 'processing', ...(ofAttempt ? { ':attempt': ofAttempt } : {}) },
    },
  };
}

/**
 * Up to `limit` dispatches of one pending shard not moved since `cutoff` whose entry is on gsi2
 * (written before decision 104, each a whole copy), oldest first.
 */
export async function indexedPendingDispatches(shard: number, cutoff: string, limit: number, store: Store): Promise<Dispatch[]> {
  const { Items = [] } = await store.db.send(new QueryCommand({ TableName: store.tableName, ...accessPatterns.indexedPendingBefore(shard, cutoff), Limit: limit }));
  return Items.map(toDispatch);
}

/** Where a read of a pending shard stopped: the last entry read, as DynamoDB names it to start after it. */
export type PendingPosition = Record<string, string>;
export const pendingPositionSchema = z.record(z.string(), z.string());

/**
 * Up to `limit` report entries of one pending shard not moved since `cutoff`, oldest first, after
 * `after` (from the first without it), each with the dispatch it names read whole from the table
 * and its own position; `next` is where the following page starts, absent at the shard's end.
 */
export async function pendingDispatchPage(
  shard: number,
  cutoff: string,
  limit: number,
  after: PendingPosition | undefined,
  store: Store,
): Promise<{ entries: { dispatch: Dispatch; position: PendingPosition }[]; next: PendingPosition | undefined }> {
  const { Items = [], LastEvaluatedKey } = await store.db.send(
    new QueryCommand({ TableName: store.tableName, ...accessPatterns.pendingBefore(shard, cutoff), Limit: limit, ...(after ? { ExclusiveStartKey: after } : {}) }),
  );
  const { partitionKey, sortKey } = tableDefinition.indexes.gsi4;
  const positionOf = new Map(Items.map((entry) => [String(entry.dispatchId), Object.fromEntries([partitionKey, sortKey, 'pk', 'sk'].map((name) => [name, String(entry[name])]))]));
  const named = (await batchGet(store, Items.map((entry) => keys.dispatch(String(entry.dispatchId))))).map(toDispatch);
  return { entries: named.map((dispatch) => ({ dispatch, position: positionOf.get(dispatch.dispatchId)! })), next: LastEvaluatedKey ? pendingPositionSchema.parse(LastEvaluatedKey) : undefined };
}
