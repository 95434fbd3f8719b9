import { parseArgs } from 'node:util';
import { AdminError, UsageError } from './command';
import { commands } from './commands/index';
import { resolveTarget, TargetError, type AdminTarget, type TargetOptions } from './target';

/** Where the CLI prints, what it reads, and (for tests) which table it writes to. */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** The table commands use; by default the target the command line names (`resolveTarget`). */
  target?: (options: TargetOptions) => Promise<AdminTarget>;
  /** The clock (tests): read once for a command's start, and again as it runs. */
  now?: () => Date;
  /** What a command that waits for the stack to settle (`reports rebuild`) waits on, in place of its timer. */
  wait?: () => Promise<void>;
}

const globalOptions = {
  local: { type: 'boolean' },
  port: { type: 'string', default: '3000' },
  stack: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function usage(): string {
  const width = Math.max(...commands.map((command) => command.name.length)) + 2;
  const list = commands.map((command) => `  ${command.name.padEnd(width)}${command.synopsis}\n  ${' '.repeat(width)}${command.summary}`);
  return `Usage: npm run admin -- <command> [options] <target> [--json]

Commands:
${list.join('\n')}

Target (one of):
  --local [--port 3000]      the local runtime started with npm start
  --stack NAME [--region R]  a deployed stack (reads its TableName output)
  TABLE_NAME=… AWS_REGION=…  in the environment (DYNAMODB_ENDPOINT too, for another DynamoDB)

--json prints the result (or {"error","message"}) as JSON on stdout. Errors are one line on
stderr; the exit status is 2 for a mistake in the command line, 1 for a refusal or a failure.`;
}

/** Runs one admin command line and answers its exit status; never throws. */
export async function runAdmin(argv: readonly string[], io: AdminIo): Promise<number> {
  const json = argv.includes('--json');
  try {
    // The command's words come first (`workspace create --id …`), its options after them.
    const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
    const words = firstOption === -1 ? argv : argv.slice(0, firstOption);
    if (!argv.length || argv.includes('--help') || argv.includes('-h')) {
      io.out(usage());
      return 0;
    }
    if (!words.length) throw new UsageError('Name the command first (`workspace create --id …`); `npm run admin -- --help` lists them');
    const name = words.join(' ');
    const command = commands.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`Unknown command "${name}"; \`npm run admin -- --help\` lists them`);

    const { values, tokens } = parseArgs({
      args: argv.slice(words.length),
      options: { ...globalOptions, ...Object.fromEntries(command.optionNames.map((option) => [option, { type: 'string' as const }])) },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    refuseAmbiguity(tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])));
    const named: Record<string, unknown> = values;
    const given = Object.fromEntries(command.optionNames.flatMap((option) => (typeof named[option] === 'string' ? [[option, named[option]]] : [])));
    const run = command.prepare(given);
    const localPort = Number(values.port);
    if (values.local && !(Number.isInteger(localPort) && localPort >= 1 && localPort <= 65_535)) throw new UsageError(`--port takes a port number (1 to 65535); got ${values.port}`);

    const store = await (io.target ?? resolveTarget)({
      ...(values.local ? { localPort } : {}),
      ...(typeof values.stack === 'string' ? { stack: values.stack } : {}),
      ...(typeof values.region === 'string' ? { region: values.region } : {}),
      env: io.env,
    });
    io.err(`Target: ${store.description}`);
    const clock = io.now ?? (() => new Date());
    const result = await run({ store, now: clock(), clock, usagePlans: store.usagePlans, env: io.env, wait: io.wait });
    for (const note of result.notes ?? []) io.err(note);
    if (json) io.out(JSON.stringify(result.data, null, 2));
    else if (result.lines.length) io.out(result.lines.join('\n'));
    return 0;
  } catch (error) {
    const failure = describeFailure(error);
    io.err(`admin: ${failure.message}`);
    if (io.env.ADMIN_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
    if (json) io.out(JSON.stringify({ error: failure.code, message: failure.message }));
    return failure.exitCode;
  }
}

/**
 * The command line is the whole of what the operator meant: an option given twice (parseArgs keeps
 * the last), two targets, or a target's option without its target would run the command on a
 * value the operator may not have meant, a key revoked in the second workspace named or a write
 * to the second stack. Each is a mistake in the command line.
 */
function refuseAmbiguity(given: string[]): void {
  const repeated = given.find((option, index) => given.indexOf(option) !== index);
  if (repeated) throw new UsageError(`--${repeated} is given more than once: name it once`);
  const local = given.includes('local');
  if (local && given.includes('stack')) throw new UsageError('Name one target: --local or --stack NAME, not both');
  if (!local && given.includes('port')) throw new UsageError('--port is for --local; name --local too, or leave --port out');
  if (local && given.includes('region')) throw new UsageError('--region is for --stack or TABLE_NAME, not --local');
}

/** Any failure as one line an operator can act on: the code `--json` shows, the message, the exit status. */
function describeFailure(error: unknown): { code: string; message: string; exitCode: number } {
  const firstLine = (text: string) => text.split('\n')[0] ?? text;
  if (error instanceof AdminError) return { code: error.code, message: firstLine(error.message), exitCode: error.exitCode };
  if (error instanceof TargetError) return { code: 'target', message: firstLine(error.message), exitCode: 2 };
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code.startsWith('ERR_PARSE_ARGS')) return { code: 'usage', message: firstLine((error as Error).message), exitCode: 2 };
  // An AWS or table failure (credentials, permissions, an unreachable table): its name says which.
  const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { code: 'failed', message: `${firstLine(described)} (ADMIN_DEBUG=1 shows the stack)`, exitCode: 1 };
}
