import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions rules as a CDK validation plugin: `cdk synth` and `cdk deploy` fail on any
 * finding that is not acknowledged next to the resource it flags, with its reason
 * (`Validations.of(construct).acknowledge`). The infrastructure tests run the same pack.
 */
export function addNagChecks(app: App): AwsSolutionsChecks {
  const pack = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(pack);
  return pack;
}
