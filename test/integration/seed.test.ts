import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listApprovedTemplates } from '../../lambdas/domain/templates/read-templates';
import { listTemplates, saveTemplate } from '../../lambdas/domain/templates/template-repository';
import { workspaceOfNumber } from '../../lambdas/domain/workspaces/workspace-number';
import { runAdmin } from '../../lib/admin/cli';
import { getWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { listApiKeys } from '../../lambdas/domain/api-keys/api-key-repository';
import { DEMO_SEED_PATH } from '../../lib/local/paths';
import { applySeed } from '../../lib/local/seed';
import { readSeed } from '../../lib/local/seed-file';
import { createTestTable } from '../support/dynamodb';

let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());

describe('seed files', () => {
  it('loads the demo seed: workspace, hashed key, template with its version pointer', async () => {
    const seed = readSeed(DEMO_SEED_PATH);
    await applySeed(seed, table, new Date('2026-05-01T00:00:00Z'));
    await applySeed(seed, table, new Date('2026-05-02T00:00:00Z'));

    expect(await getWorkspace('ws-demo', table)).toMatchObject({
      name: 'Demo workspace',
      rupiahPerCredit: 150,
      settings: { sendsPerMinute: 600, dedupe: 'none', provider: 'sandbox' },
      createdAt: '2026-05-01T00:00:00.000Z',
      updatedAt: '2026-05-01T00:00:00.000Z',
    });
    expect(await listApiKeys('ws-demo', table)).toEqual([expect.objectContaining({ name: 'demo', hint: '…0001', status: 'active' })]);
    expect((await listApprovedTemplates('ws-demo', table)).map((t) => t.id)).toEqual(['7b0c5c3e-0000-4000-8000-000000000001']);
    const items = await table.scanAll();
    expect(items.filter((item) => item.entity === 'templateVersion')).toEqual([
      expect.objectContaining({ sk: 'TPLV#7b0c5c3e-0000-4000-8000-0000000000a1', templateId: '7b0c5c3e-0000-4000-8000-000000000001' }),
    ]);
    expect(JSON.stringify(items)).not.toContain('msk_local_demo_0001');
  });

  it('keeps what the operator changed in a seeded workspace when a restart applies the seed again (MESSAGING_DATA_DIR)', async () => {
    const seed = readSeed(DEMO_SEED_PATH);
    await applySeed(seed, table, new Date('2026-05-01T00:00:00Z'));
    const admin = (...argv: string[]) => runAdmin(argv, { out: () => {}, err: () => {}, env: {}, target: async () => ({ ...table, description: 'local runtime', usagePlans: { kind: 'local' as const } }) });
    expect(await admin('workspace', 'update', '--id', 'ws-demo', '--rupiah-per-credit', '200', '--whatsapp-phone-number-id', '106540352242922', '--usage-plan', 'bulk')).toBe(0);
    const [key] = await listApiKeys('ws-demo', table);
    expect(await admin('key', 'revoke', '--workspace', 'ws-demo', '--key-id', key!.keyId)).toBe(0);
    const template = (await listTemplates('ws-demo', table))[0]!;
    await saveTemplate('ws-demo', { ...template, displayName: 'Renamed by the operator' }, table);

    // `npm start` again, with the same MESSAGING_DATA_DIR.
    await applySeed(seed, table, new Date('2026-05-03T00:00:00Z'));

    expect(await getWorkspace('ws-demo', table)).toMatchObject({ rupiahPerCredit: 200, settings: { whatsappPhoneNumberId: '106540352242922', usagePlan: 'bulk' } });
    expect(await workspaceOfNumber('106540352242922', table)).toBe('ws-demo');
    expect(await listApiKeys('ws-demo', table)).toEqual([expect.objectContaining({ keyId: key!.keyId, status: 'revoked' })]);
    expect((await listTemplates('ws-demo', table)).map((t) => t.displayName)).toEqual(['Renamed by the operator']);
  });

  it('keeps a workspace’s templates to itself and lists only APPROVED ones', async () => {
    await applySeed(readSeed(join(__dirname, '..', 'fixtures', 'second-workspace-seed.json')), table);
    expect((await listTemplates('ws-second', table)).map((t) => t.status)).toEqual(['PENDING', 'APPROVED']);
    expect((await listApprovedTemplates('ws-second', table)).map((t) => t.id)).toEqual(['5e0c0000-0000-4000-8000-000000000001']);
    expect((await listTemplates('ws-demo', table)).map((t) => t.id)).toEqual(['7b0c5c3e-0000-4000-8000-000000000001']);
  });

  it('explains a missing or invalid seed file in one line', () => {
    expect(() => readSeed(join(__dirname, 'does-not-exist.json'))).toThrow(/^Cannot read the seed file .*does-not-exist.json/);
    expect(() => readSeed(join(__dirname, '..', '..', 'package.json'))).toThrow(/^The seed file .*package.json is invalid: workspaces: /);
  });

  // `workspace list` and `key list` print names in tab-separated lines, one a workspace or key.
  it('refuses a workspace or key name holding a line break or a tab', () => {
    const seedWith = (workspaceName: string, keyName: string) => {
      const path = join(mkdtempSync(join(tmpdir(), 'seed-')), 'seed.json');
      writeFileSync(path, JSON.stringify({ workspaces: [{ id: 'ws-names', name: workspaceName, rupiahPerCredit: 100, apiKeys: [{ key: 'msk_test_names_0001', name: keyName, scopes: ['messages:read'] }] }] }));
      return path;
    };
    expect(() => readSeed(seedWith('Acme\nws-other', 'backend'))).toThrow(/is invalid: workspaces.0.name: must not hold control characters/);
    expect(() => readSeed(seedWith('Acme', 'back\tend'))).toThrow(/is invalid: workspaces.0.apiKeys.0.name: must not hold control characters/);
    expect(readSeed(seedWith('Acme Şirketi — ✓', 'backend')).workspaces[0]!.name).toBe('Acme Şirketi — ✓');
  });
});
