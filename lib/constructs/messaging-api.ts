import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat, EndpointType, LambdaIntegration, LogGroupLogDestination, MethodLoggingLevel, ResponseTransferMode, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { BINARY_MEDIA_TYPES, pathOf, routeEntries, routes, type RouteId } from '../../lambdas/routes';
import { AppFunction } from './app-function';
import { addGatewayResponses } from './gateway-responses';
import { HANDLERS_DIR } from '../project-paths';

export interface MessagingApiProps {
  stage: string;
  table: ITableV2;
  queue: IQueue;
  /** The webhook-events queue, for the routes that resend or test (lib/constructs/webhook-pipeline.ts). */
  webhookQueue: IQueue;
  whatsappSecret: ISecret;
  cursorSecret: ISecret;
  throttlingRateLimit: number;
  throttlingBurstLimit: number;
  /** Whether this stack sets the account's API Gateway CloudWatch role (one per account and region). */
  ownsCloudWatchRole: boolean;
  /** A regional WAFv2 web ACL to associate with the stage. */
  webAclArn?: string | undefined;
  logRetention: RetentionDays;
  /** The customer-managed key for the log groups, when the stack has one. */
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}

const STREAMING_TIMEOUT = Duration.minutes(2);

/**
 * One JSON line per request, with the fields the runbook queries (docs/operations.md). Without an
 * API Gateway authorizer `$context.authorizer.*` is empty, so the workspace and key id are not
 * here: the function logs them on its own lines (`workspaceId`, `apiKeyId`), joined by `requestId`.
 */
export const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    ip: AccessLogField.contextIdentitySourceIp(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    protocol: AccessLogField.contextProtocol(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    integrationStatus: AccessLogField.contextIntegrationStatus(),
    errorType: AccessLogField.contextErrorResponseType(),
  }),
);

/**
 * The REST API, with one function and one method per entry of the route table. Each function
 * is granted exactly the access its route declares.
 */
export class MessagingApi extends Construct {
  readonly api: RestApi;
  readonly functions: Partial<Record<RouteId, AppFunction>> = {};
  /** Where WhatsApp (and the sandbox) post status callbacks. */
  readonly webhookUrl: string;

  constructor(scope: Construct, id: string, props: MessagingApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, encryptionKey: props.encryptionKey, removalPolicy: props.removalPolicy });

    this.api = new RestApi(this, 'Api', {
      restApiName: `messaging-api-${props.stage}`,
      description: 'Messaging API: WhatsApp template messages for workspace integrations',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Access logs need API Gateway's CloudWatch role, an account-wide setting: one stack per
      // account and region sets it (apiGatewayCloudWatchRole), or none does (docs/deploy.md).
      cloudWatchRole: props.ownsCloudWatchRole,
      ...(props.ownsCloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        // No X-Ray, as on the functions (decision 59).
        tracingEnabled: false,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });
    addGatewayResponses(this.api);
    Validations.of(this.api.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Each function validates its request with zod against the contract and answers 422 naming the field; API Gateway models would be a second copy of those schemas with different error messages.',
    });
    if (props.ownsCloudWatchRole) {
      Validations.of(this.api.node.findChild('CloudWatchRole')).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The account-level role API Gateway writes access and execution logs with; AWS maintains this managed policy for exactly that.',
      });
    }
    if (props.webAclArn) {
      new CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: this.api.deploymentStage.stageArn, webAclArn: props.webAclArn });
    } else {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF on this stage (context webAclArn unset): callers are servers with API keys, throttled per stage and per workspace. A WAFv2 web ACL (AWS managed common and IP reputation rules, a rate rule per source IP) costs ~$6/month plus $0.60 per million requests.',
      });
    }

    for (const [routeId, route] of routeEntries) {
      const fn = new AppFunction(this, `${routeId[0]!.toUpperCase()}${routeId.slice(1)}Function`, {
        entry: join(HANDLERS_DIR, `${route.handler}.ts`),
        description: `${route.method} ${route.path}: ${route.summary}`,
        logRetention: props.logRetention,
        logEncryptionKey: props.encryptionKey,
        removalPolicy: props.removalPolicy,
        // A streamed report page of 100 000 rows takes longer than API Gateway's buffered 29 s.
        ...(route.streaming ? { timeout: STREAMING_TIMEOUT, memorySize: 1024 } : {}),
      });
      if (route.access.table === 'read') fn.readsTable(props.table);
      if (route.access.table === 'readWrite') fn.writesTable(props.table);
      if (route.access.queue === 'send') fn.sendsTo(props.queue);
      if (route.access.webhookQueue === 'send') fn.sendsTo(props.webhookQueue, 'WEBHOOK_QUEUE_URL');
      if (route.access.secrets === 'whatsapp') fn.readsSecret(props.whatsappSecret, 'WHATSAPP_SECRET_NAME');
      if (route.access.secrets === 'cursor') fn.readsSecret(props.cursorSecret, 'CURSOR_SECRET_NAME');
      this.functions[routeId] = fn;
      const integration = new LambdaIntegration(fn, route.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: STREAMING_TIMEOUT } : {});
      const method = this.api.root.resourceForPath(route.path).addMethod(route.method, integration, { operationName: routeId });
      const authorization = route.scope
        ? `The function authenticates the X-API-Key header itself (hashed key lookup, revocation, expiry) and checks the route's scope ${route.scope}; IAM or Cognito authorizers do not fit server-to-server workspace keys.`
        : 'Public by contract: GET /health, or a WhatsApp webhook whose body the function verifies with the app secret (X-Hub-Signature-256).';
      Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: authorization }, { id: 'AwsSolutions-COG4', reason: authorization });
    }

    this.webhookUrl = this.api.urlForPath(pathOf(routes.whatsappWebhook));
    new CfnOutput(this, 'ApiUrl', { key: 'ApiUrl', value: this.api.url, description: 'Base URL of the API stage' });
  }
}
