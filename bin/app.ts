import './node-check.cjs';
import { App } from 'aws-cdk-lib';
import { MessagingStack } from '../lib/messaging-stack';
import { addNagChecks } from '../lib/nag-checks';
import { readStackConfig } from '../lib/stack-config';

/** CDK app: `npm run synth`, `npx cdk deploy -c stage=prod`. Both run cdk-nag's AwsSolutions checks. */
const app = new App();
const config = readStackConfig(app.node);
new MessagingStack(app, `MessagingApi-${config.stage}`, {
  config,
  description: `Messaging API (${config.stage})`,
});
addNagChecks(app);
