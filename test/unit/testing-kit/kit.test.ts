import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { containerCaches } from '../../../lib/testing';
import { PROJECT_ROOT } from '../../../lib/project-paths';

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');

describe('the README’s handler-testing example', () => {
  it('is test/unit/testing-kit/readme-example.test.ts, verbatim, so it runs as a test', () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('### Invoking a handler in a unit test'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toBe(read('test/unit/testing-kit/readme-example.test.ts'));
  });
});

/**
 * Module-level state under lambdas/ that lives as long as the container. Each is either cleared by
 * `resetContainerCaches` (under the containerCaches entry named) or is not a cache, for the reason given.
 */
const moduleState: Record<string, keyof typeof containerCaches | { notACache: string }> = {
  'lambdas/domain/api-keys/authenticate.ts cache': 'apiKeys',
  'lambdas/domain/templates/template-lookup.ts cache': 'templates',
  'lambdas/domain/workspaces/workspace-lookup.ts cache': 'workspaces',
  'lambdas/domain/workspaces/number-owner-lookup.ts cache': 'numberOwners',
  'lambdas/domain/webhooks/event-gate.ts cache': 'webhookEventGate',
  'lambdas/domain/webhooks/endpoint-health.ts cleared': 'webhookEndpointHealth',
  'lambdas/domain/messages/send-rate.ts leases': 'sendRateLeases',
  'lambdas/domain/messages/send-rate.ts reserving': 'sendRateLeases',
  'lambdas/domain/delivery/number-pace.ts sentThisSecond': 'numberPaces',
  'lambdas/domain/delivery/number-pace.ts heldUntilWritten': 'numberPaces',
  'lambdas/domain/delivery/report-evidence.ts written': 'reportEvidence',
  'lambdas/domain/delivery/template-pacing.ts written': 'templatePacing',
  'lambdas/domain/providers/sandbox.ts callsByDispatch': 'sandboxCalls',
  'lambdas/domain/providers/sandbox.ts pendingReports': { notACache: 'reports in flight; settleProviders() awaits them' },
  'lambdas/domain/providers/request-writes.ts subscribed': { notACache: 'whether the diagnostics channels are subscribed: once per process' },
  'lambdas/domain/providers/request-writes.ts watched': { notACache: 'a WeakMap of requests in flight to their watch: it holds nothing a finished send keeps' },
  'lambdas/shared/default-store.ts fromConfig': { notACache: 'the table named by TABLE_NAME, which is fixed per container' },
  'lambdas/shared/default-store.ts queueFromConfig': { notACache: 'the queue named by QUEUE_URL, which is fixed per container' },
  'lambdas/shared/metrics.ts recorded': { notACache: 'one invocation’s metrics; every handler’s flushMetrics writes and empties it' },
  'lambdas/shared/default-store.ts webhookQueueFromConfig': { notACache: 'the queue named by WEBHOOK_QUEUE_URL, which is fixed per container' },
  'lambdas/shared/dependency-errors.ts SOCKET_CODES': { notACache: 'a constant' },
  'lambdas/shared/dependency-errors.ts UNAVAILABLE_NAMES': { notACache: 'a constant' },
  'lambdas/shared/dependency-errors.ts THROTTLED_REASONS': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-errors.ts TRANSIENT_CODES': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-errors.ts CREDENTIAL_CODES': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-errors.ts BEFORE_REQUEST': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-errors.ts LONG_REFUSALS': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-errors.ts OUTAGE_CODES': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-webhook.ts LIMIT_LOWERED': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-webhook.ts RESTRICTING_EVENTS': { notACache: 'a constant' },
  'lambdas/domain/providers/whatsapp-webhook.ts CHANGES_OF_A_MESSAGE': { notACache: 'a constant' },
  'lambdas/domain/messages/dispatch-repository.ts STORED_ATTRIBUTES': { notACache: 'a constant: the names the stored schema reads' },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('resetContainerCaches', () => {
  it('accounts for every module-level Map, Set, TtlCache and `let` under lambdas/', () => {
    const found = sourceFiles('lambdas').flatMap((file) =>
      [...read(file).matchAll(/^(?:let (\w+)|(?:export )?const (\w+)(?::[^=]+)? = new (?:Map|Set|WeakMap|TtlCache)\b)/gm)].map(
        (match) => `${relative(PROJECT_ROOT, join(PROJECT_ROOT, file))} ${match[1] ?? match[2]}`,
      ),
    );
    expect(found.sort()).toEqual(Object.keys(moduleState).sort());
  });
});
