import { createHash } from 'node:crypto';

/**
 * A conversation is one per workspace, channel and normalized contact (docs/api.md#conversations). Deriving its
 * id from those three means the send transaction can write to it without first looking it up.
 * The result is formatted as a UUID (version 8: application-defined).
 */
export function conversationIdFor(workspaceId: string, channel: string, contact: string): string {
  const bytes = createHash('sha256').update(`${workspaceId}\u0000${channel}\u0000${contact}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
