import { randomUUID } from 'node:crypto';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlansCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { getWorkspace } from '../../lambdas/domain/workspaces/workspace-repository';
import { runAdmin } from '../../lib/admin/cli';
import type { UsagePlanTarget } from '../../lib/admin/target';
import { createTestTable } from '../support/dynamodb';

/**
 * `--usage-plan` on the admin CLI: the workspace's state in DynamoDB Local, and the API Gateway
 * calls (mocked: there is no account here, docs/deploy.md) that a deployed stack would receive.
 */
const gateway = mockClient(APIGatewayClient);
let table: Awaited<ReturnType<typeof createTestTable>>;
const now = new Date('2026-05-01T00:00:00Z');
const PLANS = { standard: 'plan-std1', bulk: 'plan-blk2' };
const stack: UsagePlanTarget = { kind: 'stack', stackName: 'MessagingApi-prod', defaultPlan: 'standard', plans: PLANS, gateway: new APIGatewayClient({ region: 'ap-southeast-3' }) };

beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.drop());
beforeEach(() => {
  gateway.reset();
  gateway.on(CreateApiKeyCommand).resolves({ id: 'key-abc123' });
  gateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'key-abc123', type: 'API_KEY' });
  gateway.on(GetUsagePlansCommand).resolves({ items: [] });
});

async function admin(usagePlans: UsagePlanTarget | undefined, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdmin(argv, { out: (text) => out.push(text), err: (text) => err.push(text), env: {}, target: async () => ({ ...table, description: 'test table', usagePlans }), now: () => now });
  const stdout = out.join('\n');
  return { status, stdout, stderr: err.join('\n'), json: () => JSON.parse(stdout) as Record<string, unknown> };
}
const id = () => `ws-${randomUUID().slice(0, 8)}`;
const create = (ws: string, target: UsagePlanTarget | undefined, ...more: string[]) => admin(target, 'workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', ...more);

describe('admin CLI: usage plans on a deployed stack', () => {
  it('gives a workspace its own usage key in the plan named, and records it on the workspace', async () => {
    const ws = id();
    await create(ws, undefined);

    const result = await admin(stack, 'workspace', 'update', '--id', ws, '--usage-plan', 'bulk', '--json');

    expect(result.status).toBe(0);
    const [createKey] = gateway.commandCalls(CreateApiKeyCommand);
    expect(createKey!.args[0].input).toEqual({
      name: `MessagingApi-prod-${ws}`,
      description: `Usage key of workspace ${ws}: counts its requests against its usage plan; not a credential`,
      enabled: true,
      value: expect.stringMatching(/^[A-Za-z0-9_-]{40}$/),
      tags: { stack: 'MessagingApi-prod', workspaceId: ws },
    });
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand).map((call) => call.args[0].input)).toEqual([{ usagePlanId: PLANS.bulk, keyId: 'key-abc123', keyType: 'API_KEY' }]);
    const stored = await getWorkspace(ws, table);
    expect(stored).toMatchObject({ settings: { usagePlan: 'bulk' }, gatewayUsageKey: { id: 'key-abc123', value: createKey!.args[0].input.value } });
    // The operator sees the key's id, never its value.
    expect(result.json()).toMatchObject({ id: ws, settings: { usagePlan: 'bulk' }, gatewayUsageKeyId: 'key-abc123' });
    expect(result.stdout).not.toContain(String(createKey!.args[0].input.value));
    expect(result.stderr).toContain('Usage plan bulk: created usage key key-abc123; requests count against it within 5 minutes');
     // Nor in the listing.
    const listed = await admin(stack, 'workspace', 'list', '--json');
    expect(listed.stdout).not.toContain(String(createKey!.args[0].input.value));
    expect((JSON.parse(listed.stdout) as { id: string; gatewayUsageKeyId?: string }[]).find((workspace) => workspace.id === ws)).toMatchObject({ gatewayUsageKeyId: 'key-abc123' });
  });

  it('moves a workspace’s key to another plan: out of the old one first, without a new key', async () => {
    const ws = id();
    await create(ws, stack, '--usage-plan', 'bulk');
    gateway.reset();
    gateway.on(GetUsagePlansCommand, { keyId: 'key-abc123' }).resolves({ items: [{ id: PLANS.bulk }, { id: 'plan-of-another-stack' }] });

    const result = await admin(stack, 'workspace', 'update', '--id', ws, '--usage-plan', 'standard');

    expect(result.status).toBe(0);
    expect(gateway.calls().map((call) => [call.args[0].constructor.name, call.args[0].input])).toEqual([
      ['GetUsagePlansCommand', { keyId: 'key-abc123', limit: 500 }],
      ['DeleteUsagePlanKeyCommand', { usagePlanId: PLANS.bulk, keyId: 'key-abc123' }],
      ['CreateUsagePlanKeyCommand', { usagePlanId: PLANS.standard, keyId: 'key-abc123', keyType: 'API_KEY' }],
    ]);
    expect(await getWorkspace(ws, table)).toMatchObject({ settings: { usagePlan: 'standard' }, gatewayUsageKey: { id: 'key-abc123' } });
    expect(result.stderr).toContain('Usage plan standard: usage key key-abc123, moved from bulk; the new limits apply at once.');
  });

  it('changes nothing in API Gateway when the key is in the plan already', async () => {
    const ws = id();
    await create(ws, stack, '--usage-plan', 'bulk');
    gateway.reset();
    gateway.on(GetUsagePlansCommand).resolves({ items: [{ id: PLANS.bulk }] });

    expect((await admin(stack, 'workspace', 'update', '--id', ws, '--usage-plan', 'bulk')).status).toBe(0);

    expect(gateway.commandCalls(DeleteUsagePlanKeyCommand)).toHaveLength(0);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)).toHaveLength(0);
    expect(gateway.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
  });

  it('puts a new workspace in the default plan with its own key, and shows it', async () => {
    const ws = id();
    expect((await create(ws, stack)).status).toBe(0);

    expect(gateway.commandCalls(CreateUsagePlanKeyCommand).map((call) => call.args[0].input.usagePlanId)).toEqual([PLANS.standard]);
    const shown = await admin(stack, 'workspace', 'show', '--id', ws);
    expect(shown.stdout.split('\n')).toEqual(expect.arrayContaining(['settings.usagePlan\tstandard', 'gatewayUsageKeyId\tkey-abc123']));
  });

  it('says when a workspace still shares the fallback key', async () => {
    const ws = id();
    await create(ws, undefined);

    const shown = await admin(stack, 'workspace', 'show', '--id', ws);

    expect(shown.stderr).toContain(`Workspace ${ws} has no usage key of its own: it shares the fallback key in plan standard`);
  });

  it('refuses a plan the stack does not have before writing anything', async () => {
    const ws = id();

    const result = await admin(stack, 'workspace', 'create', '--id', ws, '--name', 'Acme', '--rupiah-per-credit', '150', '--usage-plan', 'gold', '--json');

    expect([result.status, result.json()]).toEqual([2, { error: 'usage_plan_unknown', message: 'Stack MessagingApi-prod has no usage plan "gold"; its plans: standard, bulk' }]);
    expect(gateway.calls()).toHaveLength(0);
    expect(await getWorkspace(ws, table)).toBeUndefined();
  });

  it('deletes a key it created when the plan refuses it, leaving the workspace on the fallback key', async () => {
    const ws = id();
    await create(ws, undefined);
    gateway.on(CreateUsagePlanKeyCommand).rejects(Object.assign(new Error('Usage plan not found'), { name: 'NotFoundException' }));
    gateway.on(DeleteApiKeyCommand).resolves({});

    const result = await admin(stack, 'workspace', 'update', '--id', ws, '--usage-plan', 'bulk');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('admin: NotFoundException: Usage plan not found');
    expect(gateway.commandCalls(DeleteApiKeyCommand).map((call) => call.args[0].input)).toEqual([{ apiKey: 'key-abc123' }]);
    const stored = await getWorkspace(ws, table);
    expect(stored?.gatewayUsageKey).toBeUndefined();
    expect(stored?.settings.usagePlan).toBeUndefined();
  });
});

// A review: the settings named were saved, then API Gateway failed, and the one line said only the AWS error.
it('says which settings it saved when the usage plan then fails, and how to finish', async () => {
  const ws = id();
  await create(ws, undefined);
  gateway.on(CreateUsagePlanKeyCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
  gateway.on(DeleteApiKeyCommand).resolves({});

  const result = await admin(stack, 'workspace', 'update', '--id', ws, '--sends-per-minute', '30', '--usage-plan', 'bulk');

  expect([result.status, result.stderr.split('\n').at(-1)]).toEqual([
    1,
    `admin: Workspace ${ws} was updated (sendsPerMinute), but usage plan bulk was not assigned (TooManyRequestsException: Rate exceeded); finish with \`workspace update --id ${ws} --usage-plan bulk\``,
  ]);
  expect((await getWorkspace(ws, table))?.settings).toMatchObject({ sendsPerMinute: 30 });
});

describe('admin CLI: usage plans elsewhere', () => {
  it('records the plan on the local runtime and says it limits nothing there', async () => {
    const ws = id();

    const result = await create(ws, { kind: 'local' }, '--usage-plan', 'bulk');

    expect(result.status).toBe(0);
    expect(result.stderr).toContain('Usage plans apply only when deployed: the local runtime has no API Gateway, so usage plan bulk is recorded and limits nothing here.');
    expect(await getWorkspace(ws, table)).toMatchObject({ settings: { usagePlan: 'bulk' } });
    expect((await getWorkspace(ws, table))?.gatewayUsageKey).toBeUndefined();
    expect(gateway.calls()).toHaveLength(0);
  });

  it('refuses a plan on a stack deployed without plans, or a target named only by TABLE_NAME', async () => {
    const ws = id();
    await create(ws, undefined);

    const none = await admin({ kind: 'none', stackName: 'MessagingApi-dev' }, 'workspace', 'update', '--id', ws, '--usage-plan', 'bulk', '--json');
    const bare = await admin(undefined, 'workspace', 'update', '--id', ws, '--usage-plan', 'bulk', '--json');

    expect([none.status, none.json().error]).toEqual([2, 'usage_plan_none']);
    expect(none.json().message).toBe('Stack MessagingApi-dev has no usage plans: deploy it with the usagePlans context setting first (docs/deploy.md)');
    expect([bare.status, bare.json().error]).toEqual([2, 'usage_plan_target']);
    expect((await getWorkspace(ws, table))?.settings.usagePlan).toBeUndefined();
  });

  it('says what a plan name is when the command line gives a bad one', async () => {
    const result = await admin({ kind: 'local' }, 'workspace', 'update', '--id', id(), '--usage-plan', 'a plan');

    expect([result.status, result.stderr]).toEqual([2, 'admin: --usage-plan a usage plan name: letters, digits, "-" and "_", at most 64 characters']);
  });
});
