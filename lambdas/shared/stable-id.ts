import { createHash } from 'node:crypto';

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of a namespace and a name). The same name always
 * gives the same id, so a record synced again, from anywhere, keeps its id without a lookup.
 */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
