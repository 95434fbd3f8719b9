import './node-check.cjs';
import { parseArgs } from 'node:util';
import { whatsAppCredentials } from '../lambdas/domain/providers/whatsapp-credentials';
import { config } from '../lambdas/shared/config';
import { createKey, createWorkspace, importTemplates, listKeys, revokeKey, syncWorkspaceTemplates, UsageError } from '../lib/admin/commands';
import { resolveTarget, TargetError } from '../lib/admin/target';

const USAGE = `Usage: npm run admin -- <command> [options] <target>

Commands:
  workspace create --id ID --name NAME --rupiah-per-credit N [--sends-per-minute N] [--dedupe none|wib-day] [--provider sandbox|whatsapp]
                   [--whatsapp-business-account-id ID]
  key create       --workspace ID --name NAME --scopes messages:send,messages:read,templates:read [--expires-at ISO] [--environment live]
  key list         --workspace ID
  key revoke       --workspace ID --key-id UUID
  templates import --workspace ID --file templates.json
  templates sync   --workspace ID [--whatsapp-secret NAME]   reads the WhatsApp Business Account's templates
                   (token: the secret NAME, default messaging-api/whatsapp with --stack; else WHATSAPP_ACCESS_TOKEN;
                   Graph API: GRAPH_API_BASE_URL, default ${config.GRAPH_API_BASE_URL})

Target (one of):
  --local [--port 3000]     the local runtime started with npm start
  --stack NAME [--region R] a deployed stack (reads its TableName output)
  TABLE_NAME=… AWS_REGION=… in the environment`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      local: { type: 'boolean' },
      port: { type: 'string', default: '3000' },
      stack: { type: 'string' },
      region: { type: 'string' },
      id: { type: 'string' },
      name: { type: 'string' },
      'rupiah-per-credit': { type: 'string' },
      'sends-per-minute': { type: 'string' },
      dedupe: { type: 'string' },
      provider: { type: 'string' },
      workspace: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      environment: { type: 'string' },
      'key-id': { type: 'string' },
      file: { type: 'string' },
      'whatsapp-business-account-id': { type: 'string' },
      'whatsapp-secret': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const need = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string' || !value) throw new UsageError(`${command} needs --${name}`);
    return value;
  };
  const number = (name: keyof typeof values): number => {
    const value = Number(need(name));
    if (!Number.isFinite(value)) throw new UsageError(`--${name} takes a number`);
    return value;
  };

  const store = await resolveTarget({
    ...(values.local ? { localPort: Number(values.port) } : {}),
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.region ? { region: values.region } : {}),
    env: process.env,
  });
  console.error(`Target: ${store.description}`);

  switch (command) {
    case 'workspace create': {
      const workspace = await createWorkspace(store, {
        id: need('id'),
        name: need('name'),
        rupiahPerCredit: number('rupiah-per-credit'),
        settings: {
          ...(values['sends-per-minute'] ? { sendsPerMinute: number('sends-per-minute') } : {}),
          ...(values.dedupe ? { dedupe: values.dedupe as 'none' | 'wib-day' } : {}),
          ...(values.provider ? { provider: values.provider as 'sandbox' | 'whatsapp' } : {}),
          ...(values['whatsapp-business-account-id'] ? { whatsappBusinessAccountId: values['whatsapp-business-account-id'] } : {}),
        },
      });
      console.log(JSON.stringify(workspace, null, 2));
      return;
    }
    case 'key create': {
      const { plaintext, record } = await createKey(store, {
        workspaceId: need('workspace'),
        name: need('name'),
        scopes: need('scopes').split(',').map((scope) => scope.trim()),
        ...(values['expires-at'] ? { expiresAt: values['expires-at'] } : {}),
        ...(values.environment ? { environment: values.environment } : {}),
      });
      console.error(`Created key ${record.keyId} (${record.scopes.join(' ')}). It is shown once; store it now:`);
      console.log(plaintext);
      return;
    }
    case 'key list':
      for (const key of await listKeys(store, need('workspace'))) {
        console.log([key.keyId, key.status.padEnd(7), key.hint, key.name, key.scopes.join(','), key.createdAt, key.revokedAt ?? ''].join('\t'));
      }
      return;
    case 'key revoke':
      await revokeKey(store, need('workspace'), need('key-id'));
      console.log(`Revoked ${values['key-id']}; it stops working within a minute (the per-container key cache).`);
      return;
    case 'templates import':
      for (const line of await importTemplates(store, need('workspace'), need('file'))) console.log(`Imported ${line}`);
      return;
    case 'templates sync': {
      // The deployed stack's secret by default (cdk.json `whatsappSecretName`), as its functions read it.
      const secretName = values['whatsapp-secret'] ?? (values.stack ? 'messaging-api/whatsapp' : undefined);
      const summary = await syncWorkspaceTemplates(store, need('workspace'), {
        graph: { baseUrl: config.GRAPH_API_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS },
        accessToken: async () => (await whatsAppCredentials(secretName)).accessToken,
      });
      console.log(JSON.stringify(summary));
      return;
    }
    default:
      throw new UsageError(`Unknown command "${command}"\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof TargetError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`admin: ${(error as Error).message}`);
    process.exit(2);
  }
  if (error instanceof Error && error.name === 'ZodError') {
    console.error(`admin: invalid input: ${error.message}`);
    process.exit(2);
  }
  console.error('admin failed:', error);
  process.exit(1);
});
