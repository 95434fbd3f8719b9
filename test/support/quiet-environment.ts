/**
 * The test environment of every project: Node's, plus output capture. Whatever a test writes to
 * stdout or stderr (the functions' JSON logs, the local runtime, CDK, console.*) is kept while the
 * test runs and printed only if the test or a hook fails, so a passing run shows jest's report and
 * nothing else (docs/decisions.md, decision 44). `TEST_OUTPUT=show` lets everything through.
 * Child processes writing to the worker's file descriptors directly are not seen here.
 */
import { Console } from 'node:console';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import NodeEnvironment from 'jest-environment-node';

/** Enough of a failing test's output to read its story, without flooding the report. */
const MAX_CHUNKS = 2000;

export default class QuietEnvironment extends NodeEnvironment {
  private readonly testPath: string;
  private readonly capturing = process.env.TEST_OUTPUT !== 'show';
  private readonly printToStderr = process.stderr.write.bind(process.stderr);
  private chunks: string[] = [];
  private dropped = 0;
  private restores: (() => void)[] = [];

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.testPath = context.testPath;
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (!this.capturing) return;
    this.restores = [process.stdout, process.stderr].map((stream) => this.capture(stream));
    // Jest's own console prints after the file, passing or not: route it through the capture too.
    this.global.console = new Console({ stdout: process.stdout, stderr: process.stderr });
  }

  override async teardown(): Promise<void> {
    for (const restore of this.restores) restore();
    await super.teardown();
  }

  handleTestEvent(event: Circus.Event): void {
    if (!this.capturing) return;
    if (event.name === 'test_start') this.clear();
    else if (event.name === 'test_done' && event.test.errors.length) this.flush(`failing test "${fullName(event.test)}"`);
    else if (event.name === 'hook_failure') this.flush(`failing ${event.hook.type} hook`);
  }

  /** Replaces the stream's `write` with one that keeps the chunk; returns the undo. */
  private capture(stream: NodeJS.WriteStream): () => void {
    const hadOwnWrite = Object.prototype.hasOwnProperty.call(stream, 'write');
    const original = stream.write;
    const keep = (chunk: string | Uint8Array, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: (error?: Error | null) => void) => {
      this.keep(chunk);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (done) process.nextTick(done);
      return true;
    };
    stream.write = keep;
    return () => {
      if (hadOwnWrite) stream.write = original;
      else Reflect.deleteProperty(stream, 'write');
    };
  }

  private keep(chunk: string | Uint8Array): void {
    this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (this.chunks.length > MAX_CHUNKS) {
      this.chunks.shift();
      this.dropped += 1;
    }
  }

  private clear(): void {
    this.chunks = [];
    this.dropped = 0;
  }

  /** Prints what was captured, under a heading naming the test or hook that failed. */
  private flush(title: string): void {
    if (this.chunks.length) {
      const dropped = this.dropped ? `… ${this.dropped} earlier writes not kept\n` : '';
      this.printToStderr(`\n── output of ${title} (${this.testPath}) ──\n${dropped}${this.chunks.join('')}── end of output ──\n`);
    }
    this.clear();
  }
}

function fullName(test: Circus.TestEntry): string {
  const names: string[] = [test.name];
  for (let block: Circus.DescribeBlock | undefined = test.parent; block && block.name !== 'ROOT_DESCRIBE_BLOCK'; block = block.parent) names.unshift(block.name);
  return names.join(' › ');
}
