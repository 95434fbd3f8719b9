import { randomBytes } from 'node:crypto';
import { CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, DeleteUsagePlanKeyCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import type { Workspace } from '../../lambdas/domain/workspaces/workspace';
import { recordGatewayUsageKey, WorkspaceWriteRefusedError } from '../../lambdas/domain/workspaces/workspace-repository';
import type { Store } from '../../lambdas/shared/store';
import { AdminError } from './command';
import type { UsagePlanTarget } from './target';

export type StackUsagePlans = Extract<UsagePlanTarget, { kind: 'stack' }>;

/** What an assignment did, for the operator. */
export interface UsagePlanAssignment {
  plan: string;
  gatewayUsageKeyId: string;
  /** True when the workspace got its usage key now (it had shared the fallback key until then). */
  keyCreated: boolean;
  /** Plans of this stack the key was taken out of. */
  movedFrom: string[];
}

/**
 * The plan `--usage-plan` names on this target, or the reason it cannot be given here. The local
 * runtime takes any name: it only records it.
 */
export function checkUsagePlanTarget(plan: string, target: UsagePlanTarget | undefined): void {
  if (!target) throw new AdminError('usage_plan_target', 'A usage plan is assigned on a deployed stack (--stack NAME, whose outputs name its plans) or recorded locally (--local); TABLE_NAME alone does not say where the plans are', 2);
  if (target.kind === 'none') throw new AdminError('usage_plan_none', `Stack ${target.stackName} has no usage plans: deploy it with the usagePlans context setting first (docs/deploy.md)`, 2);
  if (target.kind === 'stack' && target.plans[plan] === undefined) {
    throw new AdminError('usage_plan_unknown', `Stack ${target.stackName} has no usage plan "${plan}"; its plans: ${Object.keys(target.plans).join(', ')}`, 2);
  }
}

/**
 * Puts the workspace's gateway usage key in `plan` on the deployed stack. A workspace without a key
 * gets one (a random value, named and tagged for the workspace), added to the plan before it is
 * recorded on the workspace item, so the authorizer never hands out a key that is in no plan. A
 * workspace with a key has it taken out of the stack's other plans and added to this one. Every
 * step can be repeated: a failed assignment is finished by running the command again.
 */
export async function assignUsagePlan(workspace: Workspace, plan: string, target: StackUsagePlans, store: Store, now: Date): Promise<UsagePlanAssignment> {
  checkUsagePlanTarget(plan, target);
  const planId = target.plans[plan]!;
  const existing = workspace.gatewayUsageKey;
  if (!existing) {
    const keyId = await createUsageKey(workspace.id, planId, target, store, now);
    return { plan, gatewayUsageKeyId: keyId, keyCreated: true, movedFrom: [] };
  }

  // A key can be in one plan per stage: it leaves the old plan before it joins the new one. The
  // workspace's requests in between answer 503 (INVALID_API_KEY, docs/deploy.md), for well under a second.
  const { gateway } = target;
  const keyId = existing.id;
  const { items = [] } = await gateway.send(new GetUsagePlansCommand({ keyId, limit: 500 }));
  const movedFrom: string[] = [];
  for (const [name, id] of Object.entries(target.plans)) {
    if (id === planId || !items.some((current) => current.id === id)) continue;
    await gateway.send(new DeleteUsagePlanKeyCommand({ usagePlanId: id, keyId }));
    movedFrom.push(name);
  }
  if (!items.some((current) => current.id === planId)) await gateway.send(new CreateUsagePlanKeyCommand({ usagePlanId: planId, keyId, keyType: 'API_KEY' }));
  return { plan, gatewayUsageKeyId: keyId, keyCreated: false, movedFrom };
}

/**
 * A new API Gateway key for the workspace, in the plan, then recorded on its item; deleted again
 * (which takes it out of the plan) if the workspace got a key from another run meanwhile.
 */
async function createUsageKey(workspaceId: string, planId: string, target: StackUsagePlans, store: Store, now: Date): Promise<string> {
  const { gateway } = target;
  // Never a credential (the API reads usage keys only from its authorizer): random so that no two
  // workspaces share one, and longer than API Gateway's 20-character minimum.
  const value = randomBytes(30).toString('base64url');
  const created = await gateway.send(
    new CreateApiKeyCommand({
      name: `${target.stackName}-${workspaceId}`,
      description: `Usage key of workspace ${workspaceId}: counts its requests against its usage plan; not a credential`,
      enabled: true,
      value,
      tags: { stack: target.stackName, workspaceId },
    }),
  );
  if (!created.id) throw new Error('API Gateway created a key without an id');
  try {
    await gateway.send(new CreateUsagePlanKeyCommand({ usagePlanId: planId, keyId: created.id, keyType: 'API_KEY' }));
    await recordGatewayUsageKey(workspaceId, { id: created.id, value }, now, store);
  } catch (error) {
    await gateway.send(new DeleteApiKeyCommand({ apiKey: created.id }));
    if (error instanceof WorkspaceWriteRefusedError) throw new AdminError(`workspace_${error.reason}`, error.message);
    throw error;
  }
  return created.id;
}
