import { randomUUID } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { runAdmin } from '../../lib/admin/cli';
import { listTemplates } from '../../lambdas/domain/templates/template-repository';
import { createTestTable } from '../support/dynamodb';
import { readWhatsAppTemplateFixture, startGraphStub, templatePages, type GraphStub } from '../support/graph-stub';

/**
 * `templates sync` as the README tells an operator to run it: the token from the secret
 * `--whatsapp-secret NAME`, read where the stack is, or else from WHATSAPP_ACCESS_TOKEN in the
 * CLI's environment; nothing else of the WhatsApp app (the webhook's app secret and verify token,
 * which the test environment has but an operator's shell does not: removed here).
 */
delete process.env.WHATSAPP_APP_SECRET;
delete process.env.WHATSAPP_VERIFY_TOKEN;
delete process.env.WHATSAPP_SECRET_NAME;
delete process.env.WHATSAPP_ACCESS_TOKEN;

let table: Awaited<ReturnType<typeof createTestTable>>;
let graph: GraphStub;
const now = new Date('2026-05-01T00:00:00Z');
const pages = ['page-1.json', 'page-2.json', 'page-3.json'].map((name) => readWhatsAppTemplateFixture<Parameters<typeof templatePages>[1][number]>(name));
const secrets = mockClient(SecretsManagerClient);

beforeAll(async () => {
  table = await createTestTable();
  graph = await startGraphStub();
  process.env.GRAPH_API_BASE_URL = graph.baseUrl;
});
afterAll(async () => {
  secrets.restore();
  await graph.close();
  await table.drop();
});

/** One command line, run in-process, with what it printed. */
async function admin(argv: string[], env: Record<string, string | undefined> = {}, target = true) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env,
    ...(target ? { target: async () => ({ ...table, description: 'test table' }) } : {}),
    now: () => now,
  });
  return { status, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** A workspace bound to an account of its own, whose templates the Graph stub serves. */
async function workspaceWithAccount(): Promise<string> {
  const ws = `ws-${randomUUID().slice(0, 8)}`;
  const account = `${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(-15);
  graph.answer = templatePages(account, pages);
  expect((await admin(['workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--whatsapp-business-account-id', account])).status).toBe(0);
  return ws;
}

it('takes the token from WHATSAPP_ACCESS_TOKEN alone when no secret is named', async () => {
  const ws = await workspaceWithAccount();
  const synced = await admin(['templates', 'sync', '--workspace', ws], { WHATSAPP_ACCESS_TOKEN: 'token-1' });
  expect([synced.status, synced.stderr]).toEqual([0, 'Target: test table']);
  expect(JSON.parse(synced.stdout)).toMatchObject({ read: 7, created: 6 });
  expect(await listTemplates(ws, table)).toHaveLength(6);
});

it('says which variable to set when there is no token at all, and sends Meta none', async () => {
  const ws = await workspaceWithAccount();
  const before = graph.received.length;
  const synced = await admin(['templates', 'sync', '--workspace', ws]);
  expect([synced.status, synced.stderr]).toEqual([2, 'Target: test table\nadmin: WHATSAPP_ACCESS_TOKEN is not set: name the stack’s secret with --whatsapp-secret, or set the token']);
  expect(graph.received.length).toBe(before);
});

it('reads the secret in the region the stack is in (--region), not the shell’s AWS_REGION', async () => {
  const ws = await workspaceWithAccount();
  const regions: string[] = [];
  secrets.on(GetSecretValueCommand).callsFake(async (_input, getClient) => {
    regions.push(await getClient().config.region());
    return { SecretString: JSON.stringify({ accessToken: 'token-1', appSecret: 'app-secret', verifyToken: 'verify' }) };
  });
  // The table is named by TABLE_NAME (DynamoDB Local answers every region), in eu-west-1 as --region says.
  const synced = await admin(['templates', 'sync', '--workspace', ws, '--whatsapp-secret', 'messaging-api/whatsapp', '--region', 'eu-west-1'], { TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT }, false);
  expect([synced.status, synced.stderr]).toEqual([0, `Target: table ${table.tableName} (eu-west-1)`]);
  expect(regions).toEqual(['eu-west-1']);
});

it('syncs with a secret that holds the access token and nothing else of the WhatsApp app', async () => {
  const ws = await workspaceWithAccount();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ accessToken: 'token-1' }) });
  const synced = await admin(['templates', 'sync', '--workspace', ws, '--whatsapp-secret', 'ops/whatsapp-sync-token']);
  expect([synced.status, synced.stderr]).toEqual([0, 'Target: test table']);
  expect(JSON.parse(synced.stdout)).toMatchObject({ read: 7, created: 6 });
});

it('names the field a secret of JSON lacks, not calling it other than JSON', async () => {
  const ws = await workspaceWithAccount();
  const before = graph.received.length;
  secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ appSecret: 'EAAJB-app-secret', verifyToken: 'verify' }) });
  const synced = await admin(['templates', 'sync', '--workspace', ws, '--whatsapp-secret', 'ops/whatsapp-sync-token']);
  expect([synced.status, synced.stderr]).toEqual([1, 'Target: test table\nadmin: Error: Secret ops/whatsapp-sync-token has no accessToken (ADMIN_DEBUG=1 shows the stack)']);
  expect(graph.received.length).toBe(before);
});

it('refuses a secret that is not the stack’s JSON without quoting any of it', async () => {
  const ws = await workspaceWithAccount();
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'EAAJB-not-json-token' });
  const synced = await admin(['templates', 'sync', '--workspace', ws, '--whatsapp-secret', 'messaging-api/broken']);
  expect(synced.status).not.toBe(0);
  expect(synced.stderr).toContain('Secret messaging-api/broken is not JSON { accessToken, appSecret, verifyToken, phoneNumberId? }');
  expect(synced.stderr).not.toContain('EAAJB');
});
