import * as z from '../../shared/zod';
import { parseItem } from '../../shared/stored-item';
import { toDispatch } from '../messages/dispatch-repository';
import { isOutboxInsert, toOutboxEvent, type OutboxEvent } from './outbox-item';
import { isDispatchChange, type StreamRecord } from './stream-filters';
import { messageStatusEvent } from './webhook-event';

/**
 * An event found in the stream, for `workspaceId`. `gated`: whether the workspace's taking events
 * is still to be asked (a dispatch change); an outbox item was written only for a workspace that
 * takes them. `event()` builds it: a dispatch change is parsed only once the gate let it through,
 * so the updates of workspaces without an endpoint (most of them) cost no parse.
 */
export interface StreamEvent {
  workspaceId: string;
  gated: boolean;
  event: () => OutboxEvent;
}

// `changedAt` is written by the two changes that leave `updatedAt` as it is (dispatch-repository.sequenceStep).
const changeSchema = z.object({ workspaceId: z.string().check(z.minLength(1)), changedAt: z.optional(z.iso.datetime()) });

/** The event a stream record tells of, from its new image (unmarshalled); undefined when it tells none. */
export function streamEventOf(record: StreamRecord, newImage: Record<string, unknown>): StreamEvent | undefined {
  if (isOutboxInsert(record)) {
    const event = toOutboxEvent(newImage);
    return { workspaceId: event.workspaceId, gated: false, event: () => event };
  }
  if (!isDispatchChange(record)) return undefined;
  const { workspaceId, changedAt } = parseItem(changeSchema, newImage, 'dispatch');
  return {
    workspaceId,
    gated: true,
    event: () => {
      const dispatch = toDispatch(newImage);
      const event = messageStatusEvent(dispatch, new Date(changedAt && changedAt > dispatch.updatedAt ? changedAt : dispatch.updatedAt));
      return { workspaceId, eventId: event.id, type: event.type, payload: JSON.stringify(event) };
    },
  };
}
