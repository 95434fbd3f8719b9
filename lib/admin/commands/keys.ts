import * as z from 'zod';
import { ApiKeyRotationRefusedError, listApiKeys, revokeApiKey, rotateApiKey, saveApiKey, type ApiKeyRecord } from '../../../lambdas/domain/api-keys/api-key-repository';
import { generateApiKey } from '../../../lambdas/domain/api-keys/api-key-secret';
import { scopes } from '../../../lambdas/shared/scopes';
import type { Store } from '../../../lambdas/shared/store';
import { AdminError, defineCommand, option, UsageError } from '../command';
import { requireWorkspace } from './workspace-exists';

/** How long a revoked or replaced key may still be accepted: each container trusts a lookup for API_KEY_CACHE_TTL_SECONDS, at most 60. */
const CACHE_NOTE = 'running functions may accept it for up to a minute longer (their key cache, API_KEY_CACHE_TTL_SECONDS)';
const UNITS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
const MAX_OVERLAP_SECONDS = 30 * 86_400;

/** `90s`, `15m`, `24h`, `7d`: how long the old key keeps working after a rotation (at most 30 days). */
const overlap = () =>
  z
    .string()
    .regex(/^\d+[smhd]$/, 'takes a duration such as 15m, 24h or 7d')
    .transform((value) => Number(value.slice(0, -1)) * UNITS[value.slice(-1) as keyof typeof UNITS])
    .refine((seconds) => seconds <= MAX_OVERLAP_SECONDS, 'is at most 30d');

const SCOPES_EXPECTED = `takes a comma-separated list of ${scopes.join(', ')}`;

const statusOf = (key: ApiKeyRecord, now: Date) => (key.status === 'revoked' ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= now.getTime() ? 'expired' : 'active');

export const keyCommands = [
  defineCommand({
    name: 'key create',
    synopsis: '--workspace ID --name NAME --scopes messages:send,messages:read,templates:read [--expires-at ISO] [--environment live]',
    summary: 'Creates a key and prints it once (only its hash is stored).',
    options: z.object({
      workspace: option.text(),
      name: option.name(),
      scopes: option.list().pipe(z.array(z.enum(scopes, { error: SCOPES_EXPECTED })).min(1, SCOPES_EXPECTED)),
      'expires-at': z.iso.datetime({ offset: true, error: 'takes an ISO date-time' }).optional(),
      environment: z.string().regex(/^[a-z0-9]{1,16}$/, 'takes lower-case letters and digits').optional(),
    }),
    async run(options, { store, now }) {
      await requireWorkspace(store, options.workspace);
      if (options['expires-at'] && Date.parse(options['expires-at']) <= now.getTime()) throw new UsageError('--expires-at is in the past: the key would never work');
      const plaintext = generateApiKey(options.environment);
      const record = await saveApiKey(
        plaintext,
        { workspaceId: options.workspace, name: options.name, scopes: options.scopes, ...(options['expires-at'] ? { expiresAt: options['expires-at'] } : {}) },
        now,
        store,
      );
      return { data: { key: plaintext, ...record }, lines: [plaintext], notes: [`Created key ${record.keyId} (${record.scopes.join(' ')}). It is shown once; store it now.`] };
    },
  }),
  defineCommand({
    name: 'key list',
    synopsis: '--workspace ID',
    summary: 'Lists a workspace’s keys: id, status, hint, name, scopes, created, revoked, expires.',
    options: z.object({ workspace: option.text() }),
    async run({ workspace }, { store, now }) {
      await requireWorkspace(store, workspace);
      const keys = await listApiKeys(workspace, store);
      return {
        data: keys.map((key) => ({ ...key, effectiveStatus: statusOf(key, now) })),
        lines: keys.map((key) => [key.keyId, statusOf(key, now), key.hint, key.name, key.scopes.join(','), key.createdAt, key.revokedAt ?? '', key.expiresAt ?? ''].join('\t')),
      };
    },
  }),
  defineCommand({
    name: 'key revoke',
    synopsis: '--workspace ID --key-id UUID',
    summary: 'Revokes a key.',
    options: z.object({ workspace: option.text(), 'key-id': option.id() }),
    async run(options, { store, now }) {
      if (!(await revokeApiKey(options.workspace, options['key-id'], now, store))) throw await keyMissing(store, options.workspace, options['key-id']);
      return { data: { keyId: options['key-id'], status: 'revoked' }, lines: [`Revoked ${options['key-id']}; ${CACHE_NOTE}.`] };
    },
  }),
  defineCommand({
    name: 'key rotate',
    synopsis: '--workspace ID --key-id UUID [--overlap 24h] [--environment live]',
    summary: 'Creates a key with the same name, scopes and expiry and prints it once; the old key keeps working for the overlap (default 24h, at most 30d), then expires. An expired or revoked key is not rotated, nor a key rotated already (rotate the key that replaced it).',
    options: z.object({
      workspace: option.text(),
      'key-id': option.id(),
      overlap: overlap().default(86_400),
      environment: z.string().regex(/^[a-z0-9]{1,16}$/, 'takes lower-case letters and digits').optional(),
    }),
    async run(options, { store, now }) {
      const plaintext = generateApiKey(options.environment);
      const until = new Date(now.getTime() + options.overlap * 1000);
      let rotated;
      try {
        rotated = await rotateApiKey(options.workspace, options['key-id'], plaintext, until, now, store);
      } catch (error) {
        if (error instanceof ApiKeyRotationRefusedError) throw new AdminError('key_not_rotatable', error.message);
        throw error;
      }
      if (!rotated) throw await keyMissing(store, options.workspace, options['key-id']);
      const { created, replaced } = rotated;
      return {
        data: { key: plaintext, ...created, replaced },
        lines: [plaintext],
        notes: [
          `Created key ${created.keyId} (${created.scopes.join(' ')}) to replace ${replaced.keyId}${created.expiresAt ? `, expiring at ${created.expiresAt} as it did` : ''}. It is shown once; store it now.`,
          `Key ${replaced.keyId} keeps working until ${replaced.expiresAt ?? ''}; ${CACHE_NOTE}.`,
        ],
      };
    },
  }),
];

/** A key the workspace does not have: or no such workspace, which every command answers alike (exit 2). */
async function keyMissing(store: Store, workspace: string, keyId: string): Promise<AdminError> {
  await requireWorkspace(store, workspace);
  return new AdminError('not_found', `Workspace ${workspace} has no key ${keyId}`);
}
