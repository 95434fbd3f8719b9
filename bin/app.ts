import './node-check.cjs';
import { App } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { MessagingStack } from '../lib/messaging-stack';
import { addNagChecks } from '../lib/nag-checks';
import { InvalidStackConfigError, readStackConfig, type StackConfig } from '../lib/stack-config';

/** A refused context value is one line naming the key (docs/deploy.md, "Settings"), not a stack trace. */
function readConfigOrExit(node: Node): StackConfig {
  try {
    return readStackConfig(node);
  } catch (error) {
    if (!(error instanceof InvalidStackConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** CDK app: `npm run synth`, `npx cdk deploy -c stage=prod`. Both run cdk-nag's AwsSolutions checks. */
const app = new App();
const config = readConfigOrExit(app.node);
new MessagingStack(app, `MessagingApi-${config.stage}`, {
  config,
  description: `Messaging API (${config.stage})`,
});
addNagChecks(app);
