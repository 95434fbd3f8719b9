import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../shared/zod';
import { keys } from '../../shared/table';
import { defaultStore } from '../../shared/default-store';
import type { Store } from '../../shared/store';
import { parseItem } from '../../shared/stored-item';
import { isConditionFailed, transactWriteThroughConflicts, writeOne, type Write } from '../../shared/writes';
import { bindingSettings, gatewayUsageKeySchema, workspaceInputSchema, workspaceSettingsSchema, type BindingSetting, type GatewayUsageKey, type Workspace, type WorkspaceInput, type WorkspaceSettings } from './workspace';
import { bindingChanges } from './workspace-binding';
import { sandboxNumberPut } from './workspace-number';

/**
 * The workspace item: its key, its writes (each in one transaction with the claims and releases of
 * the identifiers its settings bind, see workspace-binding.ts) and its reading back.
 */
const storedWorkspaceSchema = z.extend(workspaceInputSchema, {
  // Any name an earlier release stored: one with a control character (a tab, a line break), refused
  // only on input since, still reads, so the workspace is served and `workspace update --name` mends it.
  name: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  gatewayUsageKey: z.optional(gatewayUsageKeySchema),
});

/** Why a workspace write was refused; the message says it for people. */
export class WorkspaceWriteRefusedError extends Error {
  override name = 'WorkspaceWriteRefusedError';

  constructor(
    readonly reason: 'exists' | 'missing' | 'bound_elsewhere' | 'changed_meanwhile',
    message: string,
  ) {
    super(message);
  }
}

export async function getWorkspace(workspaceId: string, store: Store = defaultStore()): Promise<Workspace | undefined> {
  const { Item } = await store.db.send(new GetCommand({ TableName: store.tableName, Key: keys.workspace(workspaceId) }));
  if (!Item) return undefined;
  return workspaceOfItem(Item);
}

/** A workspace item as read back, however it was found. */
export function workspaceOfItem(item: Record<string, unknown>): Workspace {
  return parseItem(storedWorkspaceSchema, item, 'workspace');
}

/** The stored workspace item (also the testing kit's, lib/testing/send-items.ts). */
export const storedWorkspaceItem = (workspace: Workspace) => ({ ...keys.workspace(workspace.id), entity: 'workspace', ...workspace });

const workspacePut = (workspace: Workspace, condition?: string): Write => ({
  Put: { Item: storedWorkspaceItem(workspace), ...(condition ? { ConditionExpression: condition } : {}) },
});

/**
 * Creates the workspace or replaces its name, rate and settings, keeping `createdAt` (a seed
 * file's declared state: the local runtime writes it for a workspace the table lacks). Its bound
 * identifiers follow its settings.
 */
export async function saveWorkspace(input: WorkspaceInput, now: Date, store: Store = defaultStore()): Promise<Workspace> {
  const parsed = workspaceInputSchema.parse(input);
  const existing = await getWorkspace(parsed.id, store);
  const workspace: Workspace = {
    ...parsed,
    createdAt: existing?.createdAt ?? now.toISOString(),
    updatedAt: now.toISOString(),
    // Not the seed's to declare: an operator's key survives a re-applied seed.
    ...(existing?.gatewayUsageKey ? { gatewayUsageKey: existing.gatewayUsageKey } : {}),
  };
  await writeWithBindings(store, workspace.id, workspacePut(workspace), existing?.settings ?? {}, workspace.settings, bindingSettings);
  return workspace;
}

/** Creates a workspace; refused when the id exists or an identifier it binds belongs to another workspace. */
export async function createWorkspace(input: WorkspaceInput, now: Date, store: Store = defaultStore()): Promise<Workspace> {
  const parsed = workspaceInputSchema.parse(input);
  const workspace: Workspace = { ...parsed, createdAt: now.toISOString(), updatedAt: now.toISOString() };
  await writeWithBindings(store, workspace.id, workspacePut(workspace, 'attribute_not_exists(pk)'), {}, workspace.settings, bindingSettings, {
    workspace: new WorkspaceWriteRefusedError('exists', `Workspace ${workspace.id} exists already; change it with \`workspace update\``),
  });
  return workspace;
}

/** What `updateWorkspace` changes: only what is named. A binding setting set to null is released. */
export interface WorkspaceChanges {
  name?: string;
  rupiahPerCredit?: number;
  settings?: { [K in keyof WorkspaceSettings]?: K extends BindingSetting ? WorkspaceSettings[K] | null : WorkspaceSettings[K] };
}

const changesSchema = z.strictObject({
  name: z.optional(workspaceInputSchema.shape.name),
  rupiahPerCredit: z.optional(workspaceInputSchema.shape.rupiahPerCredit),
  settings: z.optional(z.strictObject({
    sendsPerMinute: z.optional(workspaceSettingsSchema.shape.sendsPerMinute.def.innerType),
    dedupe: z.optional(workspaceSettingsSchema.shape.dedupe.def.innerType),
    provider: z.optional(workspaceSettingsSchema.shape.provider.def.innerType),
    whatsappPhoneNumberId: z.optional(z.nullable(workspaceSettingsSchema.shape.whatsappPhoneNumberId.def.innerType)),
    whatsappBusinessAccountId: z.optional(z.nullable(workspaceSettingsSchema.shape.whatsappBusinessAccountId.def.innerType)),
    whatsappMessagesPerSecond: z.optional(workspaceSettingsSchema.shape.whatsappMessagesPerSecond.def.innerType),
    usagePlan: z.optional(workspaceSettingsSchema.shape.usagePlan.def.innerType),
  })),
});

/**
 * Changes only the attributes named in `changes` (one UpdateItem, so a concurrent change of
 * another setting is kept). Rebinding an identifier claims the new one and releases the old one in
 * the same transaction; refused when another workspace holds the new one, or when the binding
 * changed since it was read.
 */
export async function updateWorkspace(workspaceId: string, changes: WorkspaceChanges, now: Date, store: Store = defaultStore()): Promise<Workspace> {
  const parsed = changesSchema.parse(changes);
  const current = await getWorkspace(workspaceId, store);
  if (!current) throw new WorkspaceWriteRefusedError('missing', `No workspace ${workspaceId}: create it first with \`workspace create\``);

  const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':updatedAt': now.toISOString() };
  const sets = ['#updatedAt = :updatedAt'];
  const removes: string[] = [];
  const conditions = ['attribute_exists(pk)'];
  for (const attribute of ['name', 'rupiahPerCredit'] as const) {
    if (parsed[attribute] === undefined) continue;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = parsed[attribute];
    sets.push(`#${attribute} = :${attribute}`);
  }
  const settingChanges = Object.entries(parsed.settings ?? {}).filter(([, value]) => value !== undefined);
  if (settingChanges.length) names['#settings'] = 'settings';
  for (const [setting, value] of settingChanges) {
    names[`#${setting}`] = setting;
    if (value === null) removes.push(`#settings.#${setting}`);
    else {
      values[`:${setting}`] = value;
      sets.push(`#settings.#${setting} = :${setting}`);
    }
  }
  const rebound = bindingSettings.filter((setting) => parsed.settings?.[setting] !== undefined && (parsed.settings[setting] ?? undefined) !== current.settings[setting]);
  for (const setting of rebound) {
    // The binding read above is the one released: a concurrent rebinding fails this update.
    const old = current.settings[setting];
    if (old) values[`:was_${setting}`] = old;
    conditions.push(old ? `#settings.#${setting} = :was_${setting}` : `attribute_not_exists(#settings.#${setting})`);
  }

  const update: Write = {
    Update: {
      Key: keys.workspace(workspaceId),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  const settings = Object.fromEntries(Object.entries({ ...current.settings, ...Object.fromEntries(settingChanges) }).filter(([, value]) => value !== null && value !== undefined));
  const updated: Workspace = {
    ...current,
    ...(parsed.name !== undefined ? { name: parsed.name } : {}),
    ...(parsed.rupiahPerCredit !== undefined ? { rupiahPerCredit: parsed.rupiahPerCredit } : {}),
    settings: workspaceSettingsSchema.parse(settings),
    updatedAt: now.toISOString(),
  };
  await writeWithBindings(store, workspaceId, update, current.settings, updated.settings, rebound, {
    workspace: new WorkspaceWriteRefusedError('changed_meanwhile', `Workspace ${workspaceId} changed or was removed meanwhile; run the command again`),
  });
  return updated;
}

/**
 * Records the workspace's API Gateway usage key, once: refused (`changed_meanwhile`) when the
 * workspace has one already, so two operators creating a key at once cannot both store theirs.
 */
export async function recordGatewayUsageKey(workspaceId: string, key: GatewayUsageKey, now: Date, store: Store = defaultStore()): Promise<void> {
  try {
    await writeOne(store, {
      Update: {
        Key: keys.workspace(workspaceId),
        UpdateExpression: 'SET gatewayUsageKey = :key, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gatewayUsageKey)',
        ExpressionAttributeValues: { ':key': gatewayUsageKeySchema.parse(key), ':now': now.toISOString() },
      },
    });
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    throw new WorkspaceWriteRefusedError('changed_meanwhile', `Workspace ${workspaceId} got a usage key or was removed meanwhile; run the command again`);
  }
}

/**
 * Writes the workspace with the claims and releases its binding changes need, in one transaction,
 * and turns a refusal into the reason an operator can act on.
 */
async function writeWithBindings(
  store: Store,
  workspaceId: string,
  workspace: Write,
  before: Partial<WorkspaceSettings>,
  after: Partial<WorkspaceSettings>,
  settings: readonly BindingSetting[],
  refusals: { workspace?: WorkspaceWriteRefusedError } = {},
): Promise<void> {
  const { claims, releases } = bindingChanges(workspaceId, before, after, settings);
  const result = await transactWriteThroughConflicts(store, { workspace, claims, releases, sandboxNumber: sandboxNumberPut(workspaceId, after) });
  if (result.committed) return;
  if (result.refused.workspace === 'ConditionalCheckFailed' && refusals.workspace) throw refusals.workspace;
  if (result.refused.claims === 'ConditionalCheckFailed') {
    const taken = settings.filter((setting) => after[setting] && after[setting] !== before[setting]).map((setting) => `${setting} ${after[setting]}`);
    throw new WorkspaceWriteRefusedError('bound_elsewhere', `${taken.join(' or ')} belongs to another workspace; unbind it there first`);
  }
  throw new Error(`Workspace ${workspaceId} write cancelled: ${JSON.stringify(result.refused)}`);
}
