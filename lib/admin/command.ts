import * as z from 'zod';
import type { Store } from '../../lambdas/shared/store';
import type { UsagePlanTarget } from './target';
import { NOT_PRINTABLE, PRINTABLE } from '../../lambdas/shared/unicode-text';

/**
 * One admin command: its words (`workspace create`), its options as a zod object of strings
 * (each key is a `--option`), and what it does. `run` answers with the data `--json` prints and
 * the lines a person reads; it throws `AdminError` for anything the operator must act on.
 */
export interface CommandSpec<S extends z.ZodObject> {
  name: string;
  /** The options as usage shows them: `--id ID --name NAME [--dedupe none|wib-day]`. */
  synopsis: string;
  summary: string;
  options: S;
  run(options: z.output<S>, context: CommandContext): Promise<CommandResult>;
}

export interface CommandContext {
  store: Store;
  /** When the command started. */
  now: Date;
  /** The time as the command runs, for one that takes long enough for it to matter (`templates sync`). */
  clock: () => Date;
  /** The CLI's environment (process.env when run from the shell). */
  env: Record<string, string | undefined>;
  /** Where usage plans are; undefined for a target named only by TABLE_NAME. */
  usagePlans?: UsagePlanTarget | undefined;
  /** What a command that waits for the stack to settle waits on, in place of its own timer (tests). */
  wait?: (() => Promise<void>) | undefined;
}

export interface CommandResult {
  /** Printed as JSON with `--json`. */
  data: unknown;
  /** Printed otherwise, one entry a line (stdout). */
  lines: string[];
  /** Said on stderr in both modes (a key shown once, what happens next). */
  notes?: string[];
}

/** A command as the CLI runs it: its options are checked first, before any target is reached. */
export interface AdminCommand {
  name: string;
  synopsis: string;
  summary: string;
  optionNames: string[];
  /** Checks the options (UsageError naming each wrong one) and answers the run that uses them. */
  prepare(options: Record<string, string | undefined>): (context: CommandContext) => Promise<CommandResult>;
}

export function defineCommand<S extends z.ZodObject>(spec: CommandSpec<S>): AdminCommand {
  return {
    name: spec.name,
    synopsis: spec.synopsis,
    summary: spec.summary,
    optionNames: Object.keys(spec.options.shape),
    prepare(options) {
      const parsed = spec.options.safeParse(options);
      if (!parsed.success) throw new UsageError(describeOptionIssues(spec.name, options, parsed.error));
      return (context) => spec.run(parsed.data, context);
    },
  };
}

/**
 * Something the operator must act on: printed as one line (no stack), with `code` in `--json`
 * output. Exit status 2 for a mistake in how the command was called, 1 for a refusal.
 */
export class AdminError extends Error {
  override name = 'AdminError';

  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export class UsageError extends AdminError {
  constructor(message: string) {
    super('usage', message, 2);
  }
}

/** Option values, read from the strings the command line gives. */
export const option = {
  text: () => z.string().trim().min(1, 'must not be empty'),
  /** A name the CLI prints in its tab-separated lists: a line break or a tab would split its line. */
  name: () => z.string().trim().min(1, 'must not be empty').regex(PRINTABLE, NOT_PRINTABLE),
  /**
   * An id stored as a lower-case UUID (a dispatch's, a key's), read in either case as the API reads
   * one: an id pasted from a client that prints it in upper case found nothing. Not held to be a
   * UUID: one that is not names nothing, and is answered so.
   */
  id: () => z.string().trim().min(1, 'must not be empty').toLowerCase(),
  number: () => z.string().trim().min(1, 'takes a number').transform(Number).pipe(z.number({ error: 'takes a number' })),
  integer: () => z.string().trim().min(1, 'takes a whole number').transform(Number).pipe(z.int({ error: 'takes a whole number' })),
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `takes one of ${values.join(', ')}` }),
  list: () => z.string().transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean)),
};

/** What is wrong with a command's options, as one line: `workspace create needs --id; --rupiah-per-credit takes a number`. */
function describeOptionIssues(command: string, given: Record<string, string | undefined>, error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    if (!issue.path.length) return `${command} ${issue.message}`;
    const name = String(issue.path[0]);
    return given[name] === undefined ? `${command} needs --${name}` : `--${name} ${issue.message}`;
  });
  return [...new Set(problems)].join('; ');
}
