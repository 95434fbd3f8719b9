import * as z from '../../shared/zod';
import { parseItem } from '../../shared/stored-item';
import { toDispatch } from '../messages/dispatch-repository';
import { isOutboxInsert, toOutboxEvent, type OutboxEvent } from './outbox-item';
import { isDispatchChange, type StreamRecord } from './stream-filters';
import { messageStatusEvent } from './webhook-event';

/**
 * An event found in the stream. `gated`: whether the workspace's taking events is still to be
 * asked (a dispatch change); an outbox item was written only for a workspace that takes them.
 */
export interface StreamEvent {
  event: OutboxEvent;
  gated: boolean;
}

// Written by the two changes that leave `updatedAt` as it is (dispatch-repository.sequenceStep).
const changeTimeSchema = z.object({ changedAt: z.optional(z.iso.datetime()) });

/** The event a stream record tells of, from its new image (unmarshalled); undefined when it tells none. */
export function streamEventOf(record: StreamRecord, newImage: Record<string, unknown>): StreamEvent | undefined {
  if (isOutboxInsert(record)) return { event: toOutboxEvent(newImage), gated: false };
  if (!isDispatchChange(record)) return undefined;
  const dispatch = toDispatch(newImage);
  const { changedAt } = parseItem(changeTimeSchema, newImage, 'dispatch');
  const event = messageStatusEvent(dispatch, new Date(changedAt && changedAt > dispatch.updatedAt ? changedAt : dispatch.updatedAt));
  return { event: { workspaceId: dispatch.workspaceId, eventId: event.id, type: event.type, payload: JSON.stringify(event) }, gated: true };
}
