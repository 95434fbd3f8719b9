import { hashApiKey } from '../../lambdas/domain/api-keys/api-key-secret';
import { indexKeys, keys } from '../../lambdas/shared/table';
import type { ApiKeyRecord } from '../../lambdas/domain/api-keys/api-key-repository';

/** The stored item of the API key `plaintext`, as saveApiKey writes it: what a mocked GetCommand answers. */
export function apiKeyItem(plaintext: string, record: Partial<ApiKeyRecord> = {}) {
  const full: ApiKeyRecord = {
    keyId: '0c9d5f7e-1111-4222-8333-444455556666',
    workspaceId: 'ws-test',
    name: 'test',
    scopes: ['messages:send', 'messages:read', 'templates:read'],
    status: 'active',
    hint: `…${plaintext.slice(-4)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...record,
  };
  return { ...keys.apiKey(hashApiKey(plaintext)), ...indexKeys.apiKey(full.workspaceId, full.keyId), entity: 'apiKey', ...full };
}
