import { existsSync, readFileSync } from 'node:fs';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import * as z from 'zod';
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

/**
 * Where `--usage-plan` applies: a deployed stack's plans (its `UsagePlans` output, with the API
 * Gateway client that assigns them), a stack deployed without plans, or the local runtime, which
 * has no API Gateway and only records the plan's name.
 */
export type UsagePlanTarget =
  | { kind: 'stack'; stackName: string; defaultPlan: string; plans: Record<string, string>; gateway: APIGatewayClient }
  | { kind: 'none'; stackName: string }
  | { kind: 'local' };

/** What the admin CLI works on: the table, and where usage plans are (unknown for a bare TABLE_NAME). */
export type AdminTarget = Store & { description: string; usagePlans?: UsagePlanTarget };

/** The stack's `UsagePlans` output (lib/constructs/usage-plans.ts). */
const usagePlansOutputSchema = z.object({ defaultPlan: z.string().min(1), plans: z.record(z.string(), z.string().min(1)) });

export class TargetError extends Error {
  override name = 'TargetError';
}

/**
 * Which table the admin CLI writes to, in order of precedence: `--local` (the running local
 * runtime), `--stack NAME` (a deployed stack's TableName output), or TABLE_NAME.
 */
export async function resolveTarget(options: TargetOptions, cloudFormation?: CloudFormationClient): Promise<AdminTarget> {
  if (options.localPort !== undefined) {
    const path = stateFilePath(options.localPort);
    if (!existsSync(path)) throw new TargetError(`No local runtime on port ${options.localPort}: start it with \`npm start\` (PORT=${options.localPort}) first`);
    const state = JSON.parse(readFileSync(path, 'utf8')) as { tableName: string; region: string; dynamodbEndpoint: string; pid?: number };
    // A runtime killed without its stop (kill -9) leaves the file; its table went with it.
    if (state.pid !== undefined && !isRunning(state.pid)) {
      throw new TargetError(`No local runtime on port ${options.localPort}: the one that wrote ${path} (process ${state.pid}) has ended; start it with \`npm start\` (PORT=${options.localPort})`);
    }
    return { ...createStore({ tableName: state.tableName, region: state.region, endpoint: state.dynamodbEndpoint, credentials: LOCAL_CREDENTIALS }), description: `local runtime on port ${options.localPort}`, usagePlans: { kind: 'local' } };
  }

  const region = options.region ?? options.env.AWS_REGION ?? options.env.AWS_DEFAULT_REGION;
  if (options.stack) {
    if (!region) throw new TargetError('Set AWS_REGION (or --region) to read the stack outputs');
    const client = cloudFormation ?? new CloudFormationClient({ region });
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: options.stack }));
    const output = (key: string) => Stacks?.[0]?.Outputs?.find((candidate) => candidate.OutputKey === key)?.OutputValue;
    const tableName = output('TableName');
    if (!tableName) throw new TargetError(`Stack ${options.stack} has no TableName output`);
    return { ...createStore({ tableName, region }), description: `stack ${options.stack} (${tableName}, ${region})`, usagePlans: usagePlansOf(options.stack, output('UsagePlans'), region) };
  }

  const tableName = options.env.TABLE_NAME;
  if (!tableName) throw new TargetError('Say which table: --local, --stack NAME, or TABLE_NAME in the environment');
  if (!region) throw new TargetError('Set AWS_REGION (or --region)');
  const endpoint = options.env.DYNAMODB_ENDPOINT;
  return { ...createStore({ tableName, region, ...(endpoint ? { endpoint } : {}) }), description: `table ${tableName} (${region})` };
}

function usagePlansOf(stackName: string, output: string | undefined, region: string): UsagePlanTarget {
  if (output === undefined) return { kind: 'none', stackName };
  const parsed = usagePlansOutputSchema.safeParse(JSON.parse(output));
  if (!parsed.success) throw new TargetError(`Stack ${stackName} has a UsagePlans output this CLI cannot read: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
  return { kind: 'stack', stackName, ...parsed.data, gateway: new APIGatewayClient({ region }) };
}

/** Whether a process of this machine is running (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
