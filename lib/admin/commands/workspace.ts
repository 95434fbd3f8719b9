import * as z from 'zod';
import type { Workspace } from '../../../lambdas/domain/workspaces/workspace';
import { createWorkspace, getWorkspace, updateWorkspace, WorkspaceWriteRefusedError } from '../../../lambdas/domain/workspaces/workspace-repository';
import { AdminError, defineCommand, option, type CommandResult } from '../command';

/** Settings options shared by `workspace create` and `workspace update`. */
const settingOptions = {
  'sends-per-minute': option.integer().optional(),
  dedupe: option.oneOf(['none', 'wib-day']).optional(),
  provider: option.oneOf(['sandbox', 'whatsapp']).optional(),
  'whatsapp-phone-number-id': option.text().optional(),
  'whatsapp-business-account-id': option.text().optional(),
};
const SETTINGS_SYNOPSIS = '[--sends-per-minute N] [--dedupe none|wib-day] [--provider sandbox|whatsapp] [--whatsapp-phone-number-id ID] [--whatsapp-business-account-id ID]';
/** On `workspace update`, this value of a binding option unbinds the identifier. */
const UNBIND = 'none';

type SettingOptions = { [K in keyof typeof settingOptions]?: z.output<(typeof settingOptions)[K]> };

function settingsFrom(options: SettingOptions, bindingValue: (value: string) => string | null = (value) => value) {
  const named = {
    sendsPerMinute: options['sends-per-minute'],
    dedupe: options.dedupe,
    provider: options.provider,
    whatsappPhoneNumberId: options['whatsapp-phone-number-id'] === undefined ? undefined : bindingValue(options['whatsapp-phone-number-id']),
    whatsappBusinessAccountId: options['whatsapp-business-account-id'] === undefined ? undefined : bindingValue(options['whatsapp-business-account-id']),
  };
  return Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
}

export const workspaceCommands = [
  defineCommand({
    name: 'workspace create',
    synopsis: `--id ID --name NAME --rupiah-per-credit N ${SETTINGS_SYNOPSIS}`,
    summary: 'Creates a workspace; refused if the id exists or a WhatsApp id it binds is another workspace’s.',
    options: z.object({ id: option.text(), name: option.text(), 'rupiah-per-credit': option.number(), ...settingOptions }),
    async run(options, { store, now }) {
      const workspace = await refusalsAsAdminErrors(() =>
        createWorkspace({ id: options.id, name: options.name, rupiahPerCredit: options['rupiah-per-credit'], settings: settingsFrom(options) }, now, store),
      );
      return shown(workspace, `Created workspace ${workspace.id}.`);
    },
  }),
  defineCommand({
    name: 'workspace update',
    synopsis: `--id ID [--name NAME] [--rupiah-per-credit N] ${SETTINGS_SYNOPSIS}`,
    summary: `Changes only the settings named; a WhatsApp id of "${UNBIND}" unbinds it. Running functions see the change within a minute.`,
    options: z
      .object({ id: option.text(), name: option.text().optional(), 'rupiah-per-credit': option.number().optional(), ...settingOptions })
      .refine((options) => Object.entries(options).some(([name, value]) => name !== 'id' && value !== undefined), 'needs at least one setting to change'),
    async run(options, { store, now }) {
      const settings = settingsFrom(options, (value) => (value === UNBIND ? null : value));
      const changes = {
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options['rupiah-per-credit'] !== undefined ? { rupiahPerCredit: options['rupiah-per-credit'] } : {}),
        ...(Object.keys(settings).length ? { settings } : {}),
      };
      const workspace = await refusalsAsAdminErrors(() => updateWorkspace(options.id, changes, now, store));
      return shown(workspace, `Updated workspace ${workspace.id}.`);
    },
  }),
  defineCommand({
    name: 'workspace show',
    synopsis: '--id ID',
    summary: 'Shows a workspace and its settings.',
    options: z.object({ id: option.text() }),
    async run({ id }, { store }) {
      const workspace = await getWorkspace(id, store);
      if (!workspace) throw new AdminError('not_found', `No workspace ${id}`);
      return shown(workspace);
    },
  }),
];

function shown(workspace: Workspace, note?: string): CommandResult {
  const { settings, ...rest } = workspace;
  return {
    data: workspace,
    lines: [...Object.entries(rest), ...Object.entries(settings).map(([name, value]) => [`settings.${name}`, value] as const)].map(([name, value]) => `${name}\t${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`),
    ...(note ? { notes: [note] } : {}),
  };
}

async function refusalsAsAdminErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof WorkspaceWriteRefusedError) throw new AdminError(`workspace_${error.reason}`, error.message);
    throw error;
  }
}
