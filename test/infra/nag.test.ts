/**
 * @slow synthesizes the stack under cdk-nag, and once with CloudFormation validation (about 20 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { cloudFormationValidationFindings, synthStack, unacknowledgedNagFindings } from '../support/synth';

describe('cdk-nag AwsSolutions checks', () => {
  const outdirs: string[] = [];
  const synth = () => synthStack({}, { outdir: outdirs[outdirs.push(mkdtempSync(join(tmpdir(), 'cdk-nag-'))) - 1] });
  afterAll(() => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('leave no finding unacknowledged, error or warning, and the synth that runs them passes', () => {
    const { app, stack } = synth();
    expect(unacknowledgedNagFindings(app, stack)).toEqual([]);
    expect(() => app.synth({ force: true })).not.toThrow();
  });

  it('fail the synth on a finding nobody acknowledged', () => {
    const { app, stack } = synth();
    new Queue(stack, 'Unreviewed');
    expect(unacknowledgedNagFindings(app, stack)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AwsSolutions-SQS4 \(error\) at MessagingApi-dev\/Unreviewed\/Resource: /)]),
    );
    expect(() => app.synth({ force: true })).toThrow(/AwsSolutions-SQS4/);
  });

  it('acknowledge findings on the resources they flag, each with a reason', () => {
    const { app, stack } = synth();
    const acknowledgements = stack.node
      .findAll()
      .flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({ path: construct.node.path, rule, reason }))),
      );
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { path, reason } of acknowledgements) {
      expect(path).not.toBe(stack.node.path);
      expect(reason.length).toBeGreaterThan(60);
    }
    expect(app.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)).toEqual([]);
  });
});

describe('CDK’s built-in CloudFormation validation', () => {
  const outdirs: string[] = [];
  const outdir = () => outdirs[outdirs.push(mkdtempSync(join(tmpdir(), 'cdk-validate-'))) - 1]!;
  afterAll(() => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('finds nothing in the default template (the other configurations: stack-settings.test.ts)', () => {
    expect(synthStack({}, { validate: true }).validationFindings).toEqual([]);
  });

  it('is read from the report, so a breach it reports only as a warning fails the test', () => {
    const app = new App({ outdir: outdir() });
    new CfnResource(new Stack(app, 'Probe'), 'Queue', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeout: 'soon' } });
    app.synth();
    expect(cloudFormationValidationFindings(app.outdir)).toEqual([expect.stringMatching(/^F3012 \(warning\) at Probe\/Queue: VisibilityTimeout: 'soon' is not of type 'integer'/)]);
  });
});
