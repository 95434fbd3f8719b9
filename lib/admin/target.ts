import { existsSync, readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { createStore, type Store } from '../../lambdas/shared/store';
import { LOCAL_CREDENTIALS, stateFilePath } from '../local/paths';

export interface TargetOptions {
  /** Talk to the local runtime listening on this port. */
  localPort?: number;
  /** Read the table name from this deployed stack's outputs. */
  stack?: string;
  region?: string;
  /** From the environment: TABLE_NAME, AWS_REGION, DYNAMODB_ENDPOINT. */
  env: Record<string, string | undefined>;
}

export class TargetError extends Error {
  override name = 'TargetError';
}

/**
 * Which table the admin CLI writes to, in order of precedence: `--local` (the running local
 * runtime), `--stack NAME` (a deployed stack's TableName output), or TABLE_NAME.
 */
export async function resolveTarget(options: TargetOptions, cloudFormation?: CloudFormationClient): Promise<Store & { description: string }> {
  if (options.localPort !== undefined) {
    const path = stateFilePath(options.localPort);
    if (!existsSync(path)) throw new TargetError(`No local runtime on port ${options.localPort}: start it with \`npm start\` (PORT=${options.localPort}) first`);
    const state = JSON.parse(readFileSync(path, 'utf8')) as { tableName: string; region: string; dynamodbEndpoint: string };
    return { ...createStore({ tableName: state.tableName, region: state.region, endpoint: state.dynamodbEndpoint, credentials: LOCAL_CREDENTIALS }), description: `local runtime on port ${options.localPort}` };
  }

  const region = options.region ?? options.env.AWS_REGION ?? options.env.AWS_DEFAULT_REGION;
  if (options.stack) {
    if (!region) throw new TargetError('Set AWS_REGION (or --region) to read the stack outputs');
    const client = cloudFormation ?? new CloudFormationClient({ region });
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: options.stack }));
    const tableName = Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === 'TableName')?.OutputValue;
    if (!tableName) throw new TargetError(`Stack ${options.stack} has no TableName output`);
    return { ...createStore({ tableName, region }), description: `stack ${options.stack} (${tableName}, ${region})` };
  }

  const tableName = options.env.TABLE_NAME;
  if (!tableName) throw new TargetError('Say which table: --local, --stack NAME, or TABLE_NAME in the environment');
  if (!region) throw new TargetError('Set AWS_REGION (or --region)');
  const endpoint = options.env.DYNAMODB_ENDPOINT;
  return { ...createStore({ tableName, region, ...(endpoint ? { endpoint } : {}) }), description: `table ${tableName} (${region})` };
}
