import { clearCaches as clearSecretsAndParameters } from '@aws-lambda-powertools/parameters';
import { clearApiKeyCache } from '../../lambdas/domain/api-keys/authenticate';
import { clearNumberPaces } from '../../lambdas/domain/delivery/number-pace';
import { clearReportEvidence } from '../../lambdas/domain/delivery/report-evidence';
import { clearTemplatePacing } from '../../lambdas/domain/delivery/template-pacing';
import { clearSendAllowanceLeases } from '../../lambdas/domain/messages/send-rate';
import { clearSandboxCalls } from '../../lambdas/domain/providers/sandbox';
import { clearTemplateCache } from '../../lambdas/domain/templates/template-lookup';
import { clearEndpointHealthCache } from '../../lambdas/domain/webhooks/endpoint-health';
import { clearEventGateCache } from '../../lambdas/domain/webhooks/event-gate';
import { clearNumberOwnerCache } from '../../lambdas/domain/workspaces/number-owner-lookup';
import { clearWorkspaceCache } from '../../lambdas/domain/workspaces/workspace-lookup';

/**
 * Every per-container cache, by what it clears. A Lambda container keeps these between
 * invocations; a test file keeps them between tests, so one test's mocked key or template would
 * answer the next. test/unit/testing-kit/kit.test.ts fails when a module-level cache
 * under lambdas/ is missing here.
 */
export const containerCaches = {
  /** Authenticated API keys (30 s) and unknown ones (5 s): lambdas/domain/api-keys/authenticate.ts. */
  apiKeys: clearApiKeyCache,
  /** Templates by id (1 min, at most 5,000): lambdas/domain/templates/template-lookup.ts. */
  templates: clearTemplateCache,
  /** Workspaces and their settings (1 min, at most 1,000): lambdas/domain/workspaces/workspace-lookup.ts. */
  workspaces: clearWorkspaceCache,
  /** Which workspace owns a WhatsApp number, for statuses (1 min): lambdas/domain/workspaces/number-owner-lookup.ts. */
  numberOwners: clearNumberOwnerCache,
  /** Leased blocks of a workspace's `sendsPerMinute`: lambdas/domain/messages/send-rate.ts. */
  sendRateLeases: clearSendAllowanceLeases,
  /** Secrets read through Powertools Parameters (the WhatsApp credentials, the cursor key; 5 min). */
  secrets: clearSecretsAndParameters,
  /** What this container sent from each WhatsApp number in the current second: lambdas/domain/delivery/number-pace.ts. */
  numberPaces: clearNumberPaces,
  /** The sandbox provider's calls per dispatch (its `0429` numbers refuse twice per dispatch). */
  sandboxCalls: clearSandboxCalls,
  /** How far this container last moved a number's report evidence: lambdas/domain/delivery/report-evidence.ts. */
  reportEvidence: clearReportEvidence,
  /** How far this container last moved a template's "held" mark on a number: lambdas/domain/delivery/template-pacing.ts. */
  templatePacing: clearTemplatePacing,
  /** Whether a workspace takes webhook events (60 s yes, 10 s no): lambdas/domain/webhooks/event-gate.ts. */
  webhookEventGate: clearEventGateCache,
  /** Endpoints whose failing mark a success cleared lately (5 min): lambdas/domain/webhooks/endpoint-health.ts. */
  webhookEndpointHealth: clearEndpointHealthCache,
} as const;

/** Forgets every per-container cache and lease, as a cold start would. Call it in `beforeEach`. */
export function resetContainerCaches(): void {
  for (const clear of Object.values(containerCaches)) clear();
}
