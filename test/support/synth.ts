import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MessagingStack } from '../../lib/messaging-stack';
import { addNagChecks } from '../../lib/nag-checks';
import { readStackConfig } from '../../lib/stack-config';
import cdkJson from '../../cdk.json';

/**
 * The stack as `cdk synth` builds it from cdk.json's context (plus overrides). Bundling is
 * skipped unless asked for: template assertions do not need the bundles, and esbuild per function
 * is most of a synth's time. So is CDK's built-in CloudFormation validation (a WebAssembly engine
 * started per synth, about three quarters of an unbundled one): it runs only where asked for
 * (`validate`), and `validationFindings` then lists what it found.
 */
export function synthStack(context: Record<string, unknown> = {}, options: { bundle?: boolean; outdir?: string; validate?: boolean } = {}) {
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'cdk-test-'));
  const app = new App({
    outdir,
    builtinCloudFormationValidation: options.validate ?? false,
    context: { ...cdkJson.context, ...context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  try {
    const config = readStackConfig(app.node);
    const stack = new MessagingStack(app, `MessagingApi-${config.stage}`, { config });
    const template = Template.fromStack(stack);
    return { app, stack, template, validationFindings: options.validate ? cloudFormationValidationFindings(outdir) : [] };
  } finally {
    // The template is in memory now; the cloud assembly on disk is not needed.
    if (!options.outdir) rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * What CDK's built-in CloudFormation validation reported in a synthesized cloud assembly, one line
 * each: rule, severity, resource and description. It reports rule breaches as warnings and lets
 * the synth pass, so a test has to read them.
 */
export function cloudFormationValidationFindings(outdir: string): string[] {
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as ValidationReport;
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations.flatMap((violation) =>
      violation.violatingConstructs.map((construct) => `${violation.ruleName} (${violation.severity}) at ${construct.constructPath}: ${violation.description}`),
    ),
  );
}

interface ValidationReport {
  pluginReports: { violations: { ruleName: string; severity: string; description: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

/**
 * Adds the cdk-nag checks to the app as `bin/app.ts` does, and returns the findings no
 * acknowledgement covers, one line each: rule, severity, construct path and explanation.
 */
export function unacknowledgedNagFindings(app: App, stack: MessagingStack): string[] {
  const { violations } = addNagChecks(app).validateScope(stack);
  return violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} (${violation.severity}) at ${resource.constructPath}: ${violation.description}`),
  );
}
