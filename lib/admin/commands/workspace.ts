import * as z from 'zod';
import { usagePlanNameSchema, type Workspace } from '../../../lambdas/domain/workspaces/workspace';
import { createWorkspace, updateWorkspace, workspaceOfItem, WorkspaceWriteRefusedError } from '../../../lambdas/domain/workspaces/workspace-repository';
import type { Entity } from '../../../lambdas/shared/table';
import { scanTable } from '../../local/scan-table';
import { AdminError, defineCommand, option, UsageError, type CommandContext, type CommandResult } from '../command';
import { assignUsagePlan, checkUsagePlanTarget } from '../usage-plans';
import { requireWorkspace } from './workspace-exists';

/** Settings options shared by `workspace create` and `workspace update`. */
const settingOptions = {
  'sends-per-minute': option.integer().optional(),
  dedupe: option.oneOf(['none', 'wib-day']).optional(),
  provider: option.oneOf(['sandbox', 'whatsapp']).optional(),
  'whatsapp-phone-number-id': option.text().optional(),
  'whatsapp-business-account-id': option.text().optional(),
  'whatsapp-messages-per-second': option.integer().optional(),
  /** Applied through API Gateway on a deployed stack, so not one of settingsFrom's plain settings. */
  'usage-plan': z.optional(usagePlanNameSchema),
};
const SETTINGS_SYNOPSIS =
  '[--sends-per-minute N] [--dedupe none|wib-day] [--provider sandbox|whatsapp] [--whatsapp-phone-number-id ID] [--whatsapp-business-account-id ID] [--whatsapp-messages-per-second N] [--usage-plan NAME]';
/** On `workspace update`, this value of a binding option unbinds the identifier; on create it names none. */
const UNBIND = 'none';

type SettingOptions = { [K in keyof typeof settingOptions]?: z.output<(typeof settingOptions)[K]> };

/** `none` binds nothing: on create it is no id, on update it releases the one bound (UNBIND). */
function settingsFrom(options: SettingOptions, bindingValue: (value: string) => string | null | undefined = (value) => (value === UNBIND ? undefined : value)) {
  const named = {
    sendsPerMinute: options['sends-per-minute'],
    dedupe: options.dedupe,
    provider: options.provider,
    whatsappPhoneNumberId: options['whatsapp-phone-number-id'] === undefined ? undefined : bindingValue(options['whatsapp-phone-number-id']),
    whatsappBusinessAccountId: options['whatsapp-business-account-id'] === undefined ? undefined : bindingValue(options['whatsapp-business-account-id']),
    whatsappMessagesPerSecond: options['whatsapp-messages-per-second'],
  };
  return Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
}

export const workspaceCommands = [
  defineCommand({
    name: 'workspace create',
    synopsis: `--id ID --name NAME --rupiah-per-credit N ${SETTINGS_SYNOPSIS}`,
    summary: 'Creates a workspace; refused if the id exists or a WhatsApp id it binds is another workspace’s. On a stack with usage plans it gets its own usage key, in the default plan unless --usage-plan names one.',
    options: z.object({
      // A workspace's usage key is named <stack>-<id>: `fallback-<plan>` would take the name of the
      // stack's own key (<stack>-fallback-<default plan>, decision 198), `fallback` that of the one before.
      id: option.text().refine((id) => !/^fallback(-|$)/.test(id), 'fallback and fallback-… name the stack’s own usage keys; choose another id'),
      name: option.name(),
      'rupiah-per-credit': option.number(),
      ...settingOptions,
    }),
    async run(options, context) {
      const { store, now, usagePlans } = context;
      const plan = options['usage-plan'] ?? (usagePlans?.kind === 'stack' ? usagePlans.defaultPlan : undefined);
      // Checked before anything is written: a plan the stack does not have refuses the whole create.
      if (options['usage-plan'] !== undefined) checkUsagePlanTarget(options['usage-plan'], usagePlans);
      const created = await refusalsAsAdminErrors(() =>
        createWorkspace({ id: options.id, name: options.name, rupiahPerCredit: options['rupiah-per-credit'], settings: settingsFrom(options) }, now, store),
      );
      if (plan === undefined) return shown(created, `Created workspace ${created.id}.`, numberNotes(created));
      try {
        const { workspace, notes } = await applyUsagePlan(created, plan, context);
        return shown(workspace, `Created workspace ${workspace.id}.`, [...notes, ...numberNotes(workspace)]);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AdminError('usage_plan_failed', `Workspace ${created.id} was created, but usage plan ${plan} was not assigned (${reason}); finish with \`workspace update --id ${created.id} --usage-plan ${plan}\``);
      }
    },
  }),
  defineCommand({
    name: 'workspace update',
    synopsis: `--id ID [--name NAME] [--rupiah-per-credit N] ${SETTINGS_SYNOPSIS}`,
    summary: `Changes only the settings named; a WhatsApp id of "${UNBIND}" unbinds it. Running functions see the change within a minute.`,
    options: z
      .object({ id: option.text(), name: option.name().optional(), 'rupiah-per-credit': option.number().optional(), ...settingOptions })
      .refine((options) => Object.entries(options).some(([name, value]) => name !== 'id' && value !== undefined), 'needs at least one setting to change'),
    async run(options, context) {
      const { store, now, usagePlans } = context;
      const plan = options['usage-plan'];
      if (plan !== undefined) checkUsagePlanTarget(plan, usagePlans);
      const settings = settingsFrom(options, (value) => (value === UNBIND ? null : value));
      const changes = {
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options['rupiah-per-credit'] !== undefined ? { rupiahPerCredit: options['rupiah-per-credit'] } : {}),
        ...(Object.keys(settings).length ? { settings } : {}),
      };
      const updated = Object.keys(changes).length ? await refusalsAsAdminErrors(() => updateWorkspace(options.id, changes, now, store)) : await requireWorkspace(store, options.id);
      if (plan === undefined) return shown(updated, `Updated workspace ${updated.id}.`, numberNotes(updated));
      try {
        const { workspace, notes } = await applyUsagePlan(updated, plan, context);
        return shown(workspace, `Updated workspace ${workspace.id}.`, [...notes, ...numberNotes(workspace)]);
      } catch (error) {
        if (!Object.keys(changes).length) throw error;
        // The other settings are saved: say so, as create does, rather than a bare AWS error.
        const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        const saved = Object.keys({ ...changes, ...settings }).filter((name) => name !== 'settings').join(', ');
        throw new AdminError('usage_plan_failed', `Workspace ${updated.id} was updated (${saved}), but usage plan ${plan} was not assigned (${reason}); finish with \`workspace update --id ${updated.id} --usage-plan ${plan}\``);
      }
    },
  }),
  defineCommand({
    name: 'workspace show',
    synopsis: '--id ID',
    summary: 'Shows a workspace, its settings and its usage plan.',
    options: z.object({ id: option.text() }),
    async run({ id }, { store, usagePlans }) {
      const workspace = await requireWorkspace(store, id);
      const sharesFallback = usagePlans?.kind === 'stack' && !workspace.gatewayUsageKey;
      return shown(workspace, undefined, sharesFallback ? [`Workspace ${id} has no usage key of its own: it shares the fallback key in plan ${usagePlans.defaultPlan}; give it one with \`workspace update --id ${id} --usage-plan NAME\``] : []);
    },
  }),
  defineCommand({
    name: 'workspace list',
    synopsis: '',
    summary: 'Lists every workspace: id, name, provider, usage plan, created. It scans the whole table (no index lists workspaces), so it reads every item once and says how many read units that took.',
    options: z.object({}),
    async run(_options, { store }) {
      const meter = { readUnits: 0 };
      const entity: Entity = 'workspace';
      const items = await scanTable(store, { expression: 'entity = :entity', values: { ':entity': entity } }, meter);
      const workspaces = items.map(workspaceOfItem).sort((a, b) => a.id.localeCompare(b.id));
      return {
        data: workspaces.map(redacted),
        lines: workspaces.map((workspace) => [workspace.id, workspace.name, workspace.settings.provider, workspace.settings.usagePlan ?? '', workspace.createdAt].join('\t')),
        notes: [`${workspaces.length} workspace${workspaces.length === 1 ? '' : 's'}; the scan read ${formatUnits(meter.readUnits)} read units.`],
      };
    },
  }),
];

const formatUnits = (units: number) => (Number.isInteger(units) ? String(units) : units.toFixed(1));

/**
 * Records the plan on the workspace: through API Gateway first on a deployed stack (its usage key,
 * created if need be, in that plan), by name only on the local runtime, which has no API Gateway.
 */
async function applyUsagePlan(workspace: Workspace, plan: string, { store, now, usagePlans }: CommandContext): Promise<{ workspace: Workspace; notes: string[] }> {
  const record = () => refusalsAsAdminErrors(() => updateWorkspace(workspace.id, { settings: { usagePlan: plan } }, now, store));
  if (usagePlans?.kind !== 'stack') {
    return { workspace: await record(), notes: [`Usage plans apply only when deployed: the local runtime has no API Gateway, so usage plan ${plan} is recorded and limits nothing here.`] };
  }
  const assignment = await assignUsagePlan(workspace, plan, usagePlans, store, now);
  const recorded = await record();
  const moved = assignment.movedFrom.length ? `, moved from ${assignment.movedFrom.join(', ')}` : '';
  return {
    workspace: recorded,
    notes: [
      assignment.keyCreated
        ? `Usage plan ${plan}: created usage key ${assignment.gatewayUsageKeyId}; requests count against it within 5 minutes (the authorizer's cache), until then against the fallback key.`
        : `Usage plan ${plan}: usage key ${assignment.gatewayUsageKeyId}${moved}; the new limits apply at once.`,
    ],
  };
}

/** What an operator should know of a WhatsApp workspace without a number of its own (decision 171, lambdas/domain/delivery/number-pace.ts). */
function numberNotes(workspace: Workspace): string[] {
  const { provider, whatsappPhoneNumberId, whatsappMessagesPerSecond } = workspace.settings;
  if (provider !== 'whatsapp' || whatsappPhoneNumberId) return [];
  return [
    `Workspace ${workspace.id} sends from the stack's default number (the secret's phoneNumberId): its statuses apply, but customers' replies and marketing stops on that number reach no workspace; name its own with --whatsapp-phone-number-id.`,
    ...(whatsappMessagesPerSecond !== undefined ? [`--whatsapp-messages-per-second paces the workspace's own number; without one it sends at the stack's whatsappMessagesPerSecond.`] : []),
  ];
}

/** The workspace as an operator reads it: its usage key by id only (the value is of no use to anyone). */
function redacted(workspace: Workspace) {
  const { gatewayUsageKey, ...unkeyed } = workspace;
  return gatewayUsageKey ? { ...unkeyed, gatewayUsageKeyId: gatewayUsageKey.id } : unkeyed;
}

function shown(workspace: Workspace, note?: string, extraNotes: string[] = []): CommandResult {
  const data = redacted(workspace);
  const { settings, ...top } = data;
  return {
    data,
    lines: [...Object.entries(top), ...Object.entries(settings).map(([name, value]) => [`settings.${name}`, value] as const)].map(([name, value]) => `${name}\t${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`),
    ...(note || extraNotes.length ? { notes: [...(note ? [note] : []), ...extraNotes] } : {}),
  };
}

async function refusalsAsAdminErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof WorkspaceWriteRefusedError) throw new AdminError(`workspace_${error.reason}`, error.message, error.reason === 'missing' ? 2 : 1);
    // A value the workspace's own schema refuses (`--sends-per-minute 0`): named by its option, as the option checks name theirs.
    if (error instanceof z.core.$ZodError) throw new UsageError(error.issues.map((issue) => `--${optionNameOf(issue.path)} ${issue.message}`).join('; '));
    throw error;
  }
}

/** The option that sets a workspace field: `settings.sendsPerMinute` → `sends-per-minute`. */
const optionNameOf = (path: readonly PropertyKey[]): string => String(path.at(-1) ?? '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
