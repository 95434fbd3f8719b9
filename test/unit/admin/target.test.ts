import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { resolveTarget } from '../../../lib/admin/target';
import { stateFilePath } from '../../../lib/local/paths';

const cloudFormation = mockClient(CloudFormationClient);

beforeEach(() => cloudFormation.reset());

describe('admin CLI target', () => {
  it('reads the table name from a deployed stack’s TableName output', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'MessagingApi-prod' }).resolves({
      Stacks: [
        {
          StackName: 'MessagingApi-prod',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [
            { OutputKey: 'ApiUrl', OutputValue: 'https://x.execute-api.ap-southeast-3.amazonaws.com/prod/' },
            { OutputKey: 'TableName', OutputValue: 'MessagingApi-prod-DataTable123' },
          ],
        },
      ],
    });
    const target = await resolveTarget({ stack: 'MessagingApi-prod', env: { AWS_REGION: 'ap-southeast-3' } }, new CloudFormationClient({ region: 'ap-southeast-3' }));
    expect(target.tableName).toBe('MessagingApi-prod-DataTable123');
    expect(target.description).toBe('stack MessagingApi-prod (MessagingApi-prod-DataTable123, ap-southeast-3)');
  });

  it('says what is missing when a stack has no TableName output, or no target is named', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [{ StackName: 'Other', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE', Outputs: [] }] });
    await expect(resolveTarget({ stack: 'Other', env: { AWS_REGION: 'ap-southeast-3' } }, new CloudFormationClient({}))).rejects.toThrow('Stack Other has no TableName output');
    await expect(resolveTarget({ env: {} })).rejects.toThrow('Say which table: --local, --stack NAME, or TABLE_NAME in the environment');
    await expect(resolveTarget({ localPort: 1, env: {} })).rejects.toThrow('No local runtime on port 1');
  });

  // A runtime killed without its stop (kill -9) leaves its state file: its table is gone with it.
  it('says a local runtime is not running when its state file names a process that has ended', async () => {
    const port = 1;
    const path = stateFilePath(port);
    mkdirSync(dirname(path), { recursive: true });
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(path, JSON.stringify({ tableName: 't', region: 'local', dynamodbEndpoint: 'http://127.0.0.1:9', pid: ended }));
    try {
      await expect(resolveTarget({ localPort: port, env: {} })).rejects.toThrow(
        `No local runtime on port ${port}: the one that wrote ${path} (process ${ended}) has ended; start it with \`npm start\` (PORT=${port})`,
      );
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('finds the stack’s usage plans by its UsagePlans output, and says when it has none', async () => {
    const outputs = (extra: { OutputKey: string; OutputValue: string }[]) => ({
      Stacks: [{ StackName: 'MessagingApi-prod', CreationTime: new Date(), StackStatus: 'CREATE_COMPLETE' as const, Outputs: [{ OutputKey: 'TableName', OutputValue: 'tbl' }, ...extra] }],
    });
    const client = new CloudFormationClient({ region: 'ap-southeast-3' });
    const options = { stack: 'MessagingApi-prod', env: { AWS_REGION: 'ap-southeast-3' } };

    cloudFormation.on(DescribeStacksCommand).resolves(outputs([{ OutputKey: 'UsagePlans', OutputValue: '{"defaultPlan":"standard","plans":{"standard":"a1b2c3","bulk":"d4e5f6"}}' }]));
    expect((await resolveTarget(options, client)).usagePlans).toMatchObject({ kind: 'stack', stackName: 'MessagingApi-prod', defaultPlan: 'standard', plans: { standard: 'a1b2c3', bulk: 'd4e5f6' } });

    cloudFormation.on(DescribeStacksCommand).resolves(outputs([]));
    expect((await resolveTarget(options, client)).usagePlans).toEqual({ kind: 'none', stackName: 'MessagingApi-prod' });

    cloudFormation.on(DescribeStacksCommand).resolves(outputs([{ OutputKey: 'UsagePlans', OutputValue: '{"plans":{}}' }]));
    await expect(resolveTarget(options, client)).rejects.toThrow('Stack MessagingApi-prod has a UsagePlans output this CLI cannot read');
  });

  it('uses TABLE_NAME and AWS_REGION from the environment', async () => {
    const target = await resolveTarget({ env: { TABLE_NAME: 'tbl', AWS_REGION: 'ap-southeast-1' } });
    expect([target.tableName, target.description]).toEqual(['tbl', 'table tbl (ap-southeast-1)']);
  });
});
