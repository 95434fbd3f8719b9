import { hashApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { indexKeys, keys } from '../../lambdas/shared/table';
import type { ApiKeyRecord } from '../../lambdas/domain/api-keys/api-key-repository';

/** The workspace the kit's items belong to unless told otherwise. */
export const TEST_WORKSPACE_ID = 'ws-test';

/**
 * The stored item of the API key `plaintext`, as saveApiKey writes it: what a mocked GetCommand
 * answers. `plaintext` must look like a key (`^msk_[A-Za-z0-9_]{8,200}$`), or the request is refused
 * (401, "The API key is malformed") before any lookup. By default the key is active, in `ws-test`,
 * with the scopes messages:send, messages:read and templates:read (not webhooks:manage).
 */
export function apiKeyItem(plaintext: string, record: Partial<ApiKeyRecord> = {}) {
  const full: ApiKeyRecord = {
    keyId: '0c9d5f7e-1111-4222-8333-444455556666',
    workspaceId: TEST_WORKSPACE_ID,
    name: 'test',
    scopes: ['messages:send', 'messages:read', 'templates:read'],
    status: 'active',
    hint: `…${plaintext.slice(-4)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    recordsReplacement: true,
    ...record,
  };
  return { ...keys.apiKey(hashApiKey(plaintext)), ...indexKeys.apiKey(full.workspaceId, full.keyId), entity: 'apiKey', ...full };
}
