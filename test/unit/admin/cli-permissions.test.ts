import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/deploy.md ("The admin CLI's credentials") gives the IAM policy an operator runs the admin CLI
 * with. Each AWS call the CLI can make, found in its code and the domain code it runs, must be
 * allowed there, or an operator given exactly that policy meets AccessDenied in a runbook step.
 */
const root = join(__dirname, '..', '..', '..');
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => readFileSync(join(root, dir, path), 'utf8'));

/** IAM actions of the SDK commands a source constructs, by the client package it imports them from. */
function actionsOf(source: string): string[] {
  const packageOf = new Map<string, string>();
  for (const [, names, from] of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/([a-z-]+)'/g)) {
    for (const name of names!.split(',').map((part) => part.trim().replace(/^type\s+/, ''))) packageOf.set(name, from!);
  }
  return [...source.matchAll(/new\s+(\w+)Command\s*\(/g)].flatMap(([, operation]) => {
    const from = packageOf.get(`${operation}Command`);
    if (from === 'lib-dynamodb') return documentActions[operation!] ?? [`dynamodb:${operation}`];
    if (from === 'client-dynamodb' || from === 'client-dynamodb-streams') return [`dynamodb:${operation}`];
    if (from === 'client-cloudformation') return [`cloudformation:${operation}`];
    // API Gateway's IAM actions are the HTTP methods of its REST resources.
    if (from === 'client-api-gateway') return [`apigateway:${/^(Get)/.test(operation!) ? 'GET' : /^(Delete)/.test(operation!) ? 'DELETE' : 'POST'}`];
    return [];
  });
}
const documentActions: Record<string, string[]> = {
  Get: ['dynamodb:GetItem'],
  BatchGet: ['dynamodb:BatchGetItem'],
  Put: ['dynamodb:PutItem'],
  Update: ['dynamodb:UpdateItem'],
  Delete: ['dynamodb:DeleteItem'],
  BatchWrite: ['dynamodb:BatchWriteItem'],
  // A transaction is authorized item by item, a ConditionCheck included.
  TransactWrite: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
};

function cliActions(): Set<string> {
  // Of lib/local, the CLI runs only the scan (`workspace list`); the rest makes the local runtime's table.
  const scan = readFileSync(join(root, 'lib', 'local', 'scan-table.ts'), 'utf8');
  const actions = new Set([...sources('lib/admin'), scan, ...sources('lambdas/domain'), ...sources('lambdas/shared')].flatMap(actionsOf));
  // `templates sync --whatsapp-secret` reads the secret through Powertools' provider.
  if (sources('lib/admin').some((source) => source.includes('getSecret(') || source.includes('SecretsProvider'))) actions.add('secretsmanager:GetSecretValue');
  return actions;
}

function documentedPolicy(): { Sid: string; Action: string | string[]; Resource: string | string[] }[] {
  const doc = readFileSync(join(root, 'docs', 'deploy.md'), 'utf8');
  const section = doc.slice(doc.indexOf("**The admin CLI's credentials.**"));
  const json = /```json\n([^]*?)```/.exec(section)![1]!;
  return (JSON.parse(json) as { Statement: { Sid: string; Action: string | string[]; Resource: string | string[] }[] }).Statement;
}

describe("the admin CLI's credentials (docs/deploy.md)", () => {
  it('allow every AWS call the CLI and the domain code it runs make', () => {
    const allowed = new Set(documentedPolicy().flatMap((statement) => [statement.Action].flat()));
    const calls = cliActions();
    // The derivation finds what it should, so an empty difference means something.
    expect([...calls]).toEqual(expect.arrayContaining(['cloudformation:DescribeStacks', 'dynamodb:Scan', 'dynamodb:GetRecords', 'apigateway:POST', 'secretsmanager:GetSecretValue']));
    expect([...calls].filter((action) => !allowed.has(action)).sort()).toEqual([]);
  });

  it('allow the stream actions on the stream, the tags of a tagged key, and the table actions on its indexes too', () => {
    const resources = (sid: string) => [documentedPolicy().find((statement) => statement.Sid === sid)!.Resource].flat();
    expect(resources('StreamRedrive')).toEqual(['arn:aws:dynamodb:<region>:<account>:table/<table>/stream/*']);
    expect(resources('UsageKeys')).toContain('arn:aws:apigateway:<region>::/tags/*');
    expect(resources('Table')).toContain('arn:aws:dynamodb:<region>:<account>:table/<table>/index/*');
  });
});
