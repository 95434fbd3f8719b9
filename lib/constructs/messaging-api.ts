import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat, ApiKeySourceType, AuthorizationType, EndpointType, LambdaIntegration, LogGroupLogDestination, MethodLoggingLevel, ResponseTransferMode, RestApi, type MethodOptions } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, PayloadFormatVersion, LogGroupLogDestination as HttpLogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IMetric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { FunctionUrlAuthType, InvokeMode, type FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { BINARY_MEDIA_TYPES, pathOf, routeEntries, routes, routeTimeoutSeconds, type RouteDefinition, type RouteId } from '../../lambdas/routes';
import { AppFunction } from './app-function';
import { addGatewayResponses } from './gateway-responses';
import { UsagePlans } from './usage-plans';
import type { SystemLogLevelSetting, UsagePlanSetting } from '../stack-config';
import { HANDLERS_DIR } from '../project-paths';

export interface MessagingApiProps {
  stage: string;
  table: ITableV2;
  queue: IQueue;
  /** The webhook-events queue, for the routes that resend or test (lib/constructs/webhook-pipeline.ts). */
  webhookQueue: IQueue;
  whatsappSecret: ISecret;
  cursorSecret: ISecret;
  /** The WhatsApp Graph API, for the routes that read it (`access.graphApi`). */
  graphApiBaseUrl: string;
  throttlingRateLimit: number;
  throttlingBurstLimit: number;
  /** Whether this stack sets the account's API Gateway CloudWatch role (one per account and region). */
  ownsCloudWatchRole: boolean;
  /** A regional WAFv2 web ACL to associate with the stage. */
  webAclArn?: string | undefined;
  /** Usage plans by name and the default one (context usagePlans): absent, no authorizer and no plan. */
  usagePlans?: { plans: Record<string, UsagePlanSetting>; defaultPlan: string } | undefined;
  /** Where WhatsApp's callbacks come in: the REST API with every other route, an HTTP API of their own, or a function URL (docs/deploy.md). */
  webhookFrontDoor: WebhookFrontDoor;
  logRetention: RetentionDays;
  /** Lambda's own log records for its functions (lib/stack-config.ts `systemLogLevel`). */
  systemLogLevel?: SystemLogLevelSetting | undefined;
  /** The customer-managed key for the log groups, when the stack has one. */
  encryptionKey?: IKey | undefined;
  removalPolicy: RemovalPolicy;
}


const ACCESS_LOG_FIELDS = {
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
};

/**
 * `restApi`: the webhook is a route of the REST API; `httpApi`: an HTTP API of its own, at under a
 * third of the price per request; `functionUrl`: a Lambda function URL, with no price per request.
 */
export type WebhookFrontDoor = 'restApi' | 'httpApi' | 'functionUrl';

/**
 * The most executions the function URL's function may take at once. WhatsApp's callbacks for one
 * sending number at its pace (80 messages a second, three callbacks each, about 120 ms apiece) need
 * about 30; the cap keeps a flood of unsigned requests, which anyone can send to a function URL,
 * from taking the account's executions from every other function. Beyond it the URL answers 429,
 * which WhatsApp retries.
 */
export const WEBHOOK_URL_CONCURRENCY = 50;

export interface WebhookMetrics {
  requests: (options: MetricOptions) => IMetric;
  serverErrors: (options: MetricOptions) => IMetric;
  /**
   * Throttles of a function whose concurrency is reserved (the callbacks' function URL): its 429s
   * beyond the reservation are by design, WhatsApp retries them, and they cannot starve any other
   * function, so the account's throttle alarm leaves them out.
   */
  reservedThrottles?: (options: MetricOptions) => IMetric;
}

/** Grants a function what a route declares it reaches, each grant with the variable that names it. */
function grantAccess(fn: AppFunction, access: RouteDefinition['access'], props: MessagingApiProps): void {
  if (access.table === 'read') fn.readsTable(props.table);
  if (access.table === 'readWrite') fn.writesTable(props.table);
  if (access.queue === 'send') fn.sendsTo(props.queue);
  if (access.webhookQueue === 'send') fn.sendsTo(props.webhookQueue, 'WEBHOOK_QUEUE_URL');
  if (access.secrets === 'whatsapp') fn.readsSecret(props.whatsappSecret, 'WHATSAPP_SECRET_NAME');
  if (access.secrets === 'cursor') fn.readsSecret(props.cursorSecret, 'CURSOR_SECRET_NAME');
  if (access.graphApi === 'read') fn.addEnvironment('GRAPH_API_BASE_URL', props.graphApiBaseUrl);
}

/** The routes WhatsApp calls: its one callback URL serves the verification GET and the signed POSTs. */
const isWebhookRoute = (route: RouteDefinition) => route.path === routes.whatsappWebhook.path;

/**
 * The HTTP API's access log line: the REST one's fields under HTTP API's names (it has a route key
 * rather than a resource path, and an error message rather than a gateway response type).
 */
export const WEBHOOK_ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    httpMethod: '$context.httpMethod',
    routeKey: '$context.routeKey',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationStatus: '$context.integrationStatus',
    errorMessage: '$context.error.message',
  }),
);

/**
 * One JSON line per request, with the fields the runbook queries (docs/operations.md). Without an
 * API Gateway authorizer `$context.authorizer.*` is empty, so the workspace and key id are not
 * here: the function logs them on its own lines (`workspaceId`, `apiKeyId`), joined by `requestId`.
 */
export const ACCESS_LOG_FORMAT = AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS));

/** With the usage-plan authorizer, each line also names the caller and the usage key it counted against. */
const ACCESS_LOG_FORMAT_WITH_AUTHORIZER = AccessLogFormat.custom(
  JSON.stringify({
    ...ACCESS_LOG_FIELDS,
    workspaceId: AccessLogField.contextAuthorizer('workspaceId'),
    apiKeyId: AccessLogField.contextAuthorizer('apiKeyId'),
    usageKey: AccessLogField.contextAuthorizer('usageKey'),
  }),
);

/**
 * The REST API, with one function and one method per entry of the route table. Each function
 * is granted exactly the access its route declares.
 */
export class MessagingApi extends Construct {
  readonly api: RestApi;
  readonly functions: Partial<Record<RouteId, AppFunction>> = {};
  /** The usage plans and their authorizer, on a stack configured with usage plans. */
  readonly usagePlans: UsagePlans | undefined;
  /** Where WhatsApp (and the sandbox) post status callbacks. */
  readonly webhookUrl: string;
  /**
   * The callbacks' requests and 5xx answers when they come in apart from the REST stage (an HTTP API
   * or a function URL), for the API's 5xx alarm; undefined when the stage's own metrics count them.
   */
  readonly webhookMetrics: WebhookMetrics | undefined;
  /** With `webhookFrontDoor=functionUrl`: the one function behind the URL, serving both callback routes. */
  readonly callbacksFunction: AppFunction | undefined;

  constructor(scope: Construct, id: string, props: MessagingApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, encryptionKey: props.encryptionKey, removalPolicy: props.removalPolicy });

    this.api = new RestApi(this, 'Api', {
      restApiName: `messaging-api-${props.stage}`,
      description: 'Messaging API: WhatsApp template messages for workspace integrations',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Usage plans count requests by the key our authorizer names, never by a header a client
      // sends: client keys stay ours, hashed in the table, and are never stored in API Gateway.
      ...(props.usagePlans ? { apiKeySourceType: ApiKeySourceType.AUTHORIZER } : {}),
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
        accessLogFormat: props.usagePlans ? ACCESS_LOG_FORMAT_WITH_AUTHORIZER : ACCESS_LOG_FORMAT,
      },
    });
    addGatewayResponses(this.api, { usagePlans: props.usagePlans !== undefined });
    this.usagePlans = props.usagePlans
      ? new UsagePlans(this, 'UsagePlans', {
          api: this.api,
          ...props.usagePlans,
          table: props.table,
          logRetention: props.logRetention,
          systemLogLevel: props.systemLogLevel,
          encryptionKey: props.encryptionKey,
          removalPolicy: props.removalPolicy,
        })
      : undefined;
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

    const webhookApi = props.webhookFrontDoor === 'httpApi' ? this.webhookHttpApi(props, accessLogs) : undefined;
    for (const [routeId, route] of routeEntries) {
      const fn = new AppFunction(this, `${routeId[0]!.toUpperCase()}${routeId.slice(1)}Function`, {
        entry: join(HANDLERS_DIR, `${route.handler}.ts`),
        description: `${route.method} ${route.path}: ${route.summary}`,
        logRetention: props.logRetention,
        systemLogLevel: props.systemLogLevel,
        logEncryptionKey: props.encryptionKey,
        removalPolicy: props.removalPolicy,
        // A streamed report page of 100 000 rows takes longer than API Gateway's buffered 29 s.
        timeout: Duration.seconds(routeTimeoutSeconds(route)),
        ...(route.streaming ? { memorySize: 1024 } : {}),
      });
      grantAccess(fn, route.access, props);
      this.functions[routeId] = fn;
      // With usage plans, an authenticated route counts its requests by the authorizer's usage key.
      const usagePlanOptions: MethodOptions =
        route.scope && this.usagePlans ? { authorizer: this.usagePlans.authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true } : {};
      const authorization = usagePlanOptions.authorizer
        ? `The usage-plan authorizer (a Lambda REQUEST authorizer) refuses keys that are missing, unknown, revoked or expired, and the function authenticates the key again and checks the route's scope ${route.scope}; Cognito does not fit server-to-server workspace keys.`
        : route.scope
        ? `The function authenticates the X-API-Key header itself (hashed key lookup, revocation, expiry) and checks the route's scope ${route.scope}; IAM or Cognito authorizers do not fit server-to-server workspace keys.`
        : 'Public by contract: GET /health, or a WhatsApp webhook whose body the function verifies with the app secret (X-Hub-Signature-256).';
      if (webhookApi && isWebhookRoute(route)) {
        // Payload format 1.0 is the REST proxy event the handlers already read; the signature is checked on its raw body as before.
        const integration = new HttpLambdaIntegration(`${routeId}Integration`, fn, { payloadFormatVersion: PayloadFormatVersion.VERSION_1_0 });
        for (const httpRoute of webhookApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration })) {
          Validations.of(httpRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: authorization });
        }
      }
      // The REST API's callback route stays whatever the front door: the deploy that switches it
      // must not refuse the callbacks WhatsApp sends, and retries, to the URL registered before.
      const integration = new LambdaIntegration(fn, route.streaming ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.seconds(routeTimeoutSeconds(route)) } : {});
      const method = this.api.root.resourceForPath(route.path).addMethod(route.method, integration, { operationName: routeId, ...usagePlanOptions });
      if (!usagePlanOptions.authorizer) Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: authorization });
      Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: authorization });
    }

    const callbackPath = pathOf(routes.whatsappWebhook);
    if (props.webhookFrontDoor === 'functionUrl') {
      const { url, fn } = this.webhookFunctionUrl(props);
      // A function URL ends with a slash; the callback path follows it.
      this.webhookUrl = `${url.url}${callbackPath.slice(1)}`;
      this.callbacksFunction = fn;
      this.webhookMetrics = {
        requests: (options) => fn.metric('UrlRequestCount', options),
        serverErrors: (options) => fn.metric('Url5xxCount', options),
        reservedThrottles: (options) => fn.metricThrottles(options),
      };
    } else if (webhookApi) {
      this.webhookUrl = `${webhookApi.apiEndpoint}${callbackPath}`;
      this.webhookMetrics = { requests: (options) => webhookApi.metricCount(options), serverErrors: (options) => webhookApi.metricServerError(options) };
    } else {
      this.webhookUrl = this.api.urlForPath(callbackPath);
      this.webhookMetrics = undefined;
    }
    new CfnOutput(this, 'ApiUrl', { key: 'ApiUrl', value: this.api.url, description: 'Base URL of the API stage' });
  }

  /**
   * WhatsApp's callbacks on a function URL: one function serving both webhook routes
   * (lambdas/handlers/whatsapp-callbacks.ts), with both routes' access, its executions capped. What
   * it does without (docs/deploy.md): a WAF web ACL, API Gateway's throttle and access log, and the
   * custom domain.
   */
  private webhookFunctionUrl(props: MessagingApiProps): { fn: AppFunction; url: FunctionUrl } {
    const fn = new AppFunction(this, 'WhatsappCallbacksFunction', {
      entry: join(HANDLERS_DIR, 'whatsapp-callbacks.ts'),
      description: `GET and POST ${routes.whatsappWebhook.path} on a function URL: ${routes.whatsappWebhookVerify.summary}; ${routes.whatsappWebhook.summary}`,
      logRetention: props.logRetention,
      systemLogLevel: props.systemLogLevel,
      logEncryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
      reservedConcurrentExecutions: WEBHOOK_URL_CONCURRENCY,
    });
    // Both routes' access at once (they read the same secret), so no grant is made twice.
    grantAccess(fn, { ...routes.whatsappWebhookVerify.access, ...routes.whatsappWebhook.access }, props);
    // Public by contract, as the REST route is: the function verifies every POST's X-Hub-Signature-256 on the raw body.
    return { fn, url: fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.BUFFERED }) };
  }

  /**
   * WhatsApp's callbacks on an HTTP API ($1.00 per million requests against the REST API's $3.50,
   * us-east-1): the same functions and signature check, throttled and access-logged like the REST
   * stage. What it does without (docs/deploy.md): a WAF web ACL (HTTP APIs take none), the REST
   * API's gateway responses in the contract's error body, and the custom domain.
   */
  private webhookHttpApi(props: MessagingApiProps, accessLogs: LogGroup): HttpApi {
    const api = new HttpApi(this, 'WebhookApi', {
      apiName: `messaging-api-webhooks-${props.stage}`,
      description: 'Messaging API: WhatsApp callbacks (signed)',
      createDefaultStage: false,
    });
    new HttpStage(this, 'WebhookStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttlingRateLimit, burstLimit: props.throttlingBurstLimit },
      accessLogSettings: { destination: new HttpLogGroupLogDestination(accessLogs), format: WEBHOOK_ACCESS_LOG_FORMAT },
    });
    return api;
  }
}
