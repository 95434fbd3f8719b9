import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';
import { isReportsChange } from '../../lambdas/domain/reports/reports-stream-filter';
import { isPublishable } from '../../lambdas/domain/webhooks/stream-filters';
import { pathOf, routeEntries, routes } from '../../lambdas/routes';
import { reportProjectionSettings } from '../../lambdas/shared/stream-consumer-settings';
import { createStore, withoutCallLog } from '../../lambdas/shared/store';
import { OPENAPI_DOCUMENT_PATH } from '../openapi/document-file';
import { ensureTable } from './bootstrap';
import { freePort } from './free-port.cjs';
import { startQueuePoller, type QueuePoller, type SqsHandler } from './queue-poller';
import { DEMO_SEED_PATH, LOCAL_CREDENTIALS, LOCAL_CURSOR_SECRET, LOCAL_TABLE_REQUEST_TIMEOUT_MS, LOCAL_WHATSAPP, PROJECT_ROOT, stateFilePath } from './paths';
import { LocalRuntimeError, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { readSeed } from './seed-file';
import type { ApiHandler, LoadedRoute } from './http-server';
import type { FunctionUrlHandler } from './function-url-server';
import { createDispatchQueues, createWebhookQueues, startSqsEmulator, type SqsEmulator } from './sqs-emulator';
import { startStreamPoller, type StreamHandler, type WindowHandler } from './stream-poller';
import { isolateInvocations } from './invocation-store';

const LOCAL_REGION = 'ap-southeast-3';

/** The reconciler's schedule: every minute deployed, more often locally so stuck work shows sooner. */
const RECONCILE_EVERY_MS = 30_000;

export interface LocalRuntimeOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  seedPath?: string;
  /** Keep DynamoDB Local's data in this folder; in memory otherwise. */
  dataDir?: string;
  /** Use an already running DynamoDB Local / SQS emulator (tests share one per run). */
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  /** Prefix of the table and queue names, so several runtimes can share one emulator. */
  namePrefix?: string;
  /**
   * Serve another runtime's table (on the same emulator) rather than `<namePrefix>-table`: the
   * bench's send-throughput child writes where the bench's runtime reads (decision 127).
   */
  tableName?: string;
  /** Run the deliver consumer in this process (the default); false leaves it to another (bench/chaos-consumer.ts). */
  consumer?: boolean;
  /**
   * Run the table's stream readers (the webhook-events publisher, the report projection), as
   * deployed: the default. A test that writes its data straight to the table and reads it back over
   * HTTP may leave them out rather than have them read every record it writes.
   */
  streamReaders?: boolean;
  /**
   * Runs every function invocation (each route's, the deliver consumer's, the reconciler's), as
   * Lambda's runtime would: the benchmarks meter each one by function (bench/harness.ts).
   */
  invoke?: Invoke;
  /**
   * Give each invocation its own Powertools state (lib/local/invocation-store.ts), so that every
   * log line names its own function and carries its own keys. It sets AWS_LAMBDA_MAX_CONCURRENCY in
   * this process, which a child process started from it inherits: Powertools there then expects a
   * store of its own. So `npm start` and the tests ask for it; the benchmarks, whose child
   * processes run handlers as a one-at-a-time Lambda does, do not.
   */
  isolateInvocations?: boolean;
  /**
   * Where WhatsApp's (here the sandbox's) callbacks come in, as the stack's setting of that name
   * (docs/deploy.md): `restApi` (the default), a route of the server; `functionUrl`, a function URL
   * of their own on a second port, serving lambdas/handlers/whatsapp-callbacks.ts.
   */
  webhookFrontDoor?: 'restApi' | 'functionUrl';
  /**
   * The report projection's tumbling window (decision 113): the stack's by default; a test that
   * reads the reports over HTTP may ask for a shorter one rather than wait out the stack's.
   */
  reportsWindowSeconds?: number;
  onError?: (error: unknown) => void;
}

/**
 * One function invocation, named by the function (route id, `deliver`, `reconcile`,
 * `publish-webhook-events`, `project-reports`, `deliver-webhook-event`), with the event it was given.
 */
export type Invoke = <T>(functionName: string, invocation: () => Promise<T>, event?: unknown) => Promise<T>;

const directly: Invoke = (_functionName, invocation) => invocation();

export interface LocalRuntime {
  url: string;
  port: number;
  /** Where the sandbox posts its signed callbacks: the server's webhook route, or the function URL. */
  webhookUrl: string;
  tableName: string;
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  /** The webhook-events queue and its DLQ (decision 78). */
  webhookQueueUrl: string;
  webhookDlqUrl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  region: string;
  stop(): Promise<void>;
}

/**
 * The whole system on one machine (docs/architecture.md#the-local-runtime): DynamoDB Local, the SQS emulator with the
 * dispatch queue and DLQ, the seed, every route's handler behind an HTTP server, the deliver
 * consumer fed by a queue poller, and the reconciler on a timer. It answers only once all of
 * these are in place, so `GET /health` doubles as the readiness check.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const prefix = options.namePrefix ?? 'messaging-local';
  const owned: { dynamodb?: DynamoDbLocal; sqs?: SqsEmulator } = {};
  let server: Server | undefined;
  let functionUrlServer: Server | undefined;
  let poller: QueuePoller | undefined;
  let webhookPoller: QueuePoller | undefined;
  let streamReaders: StreamReaders | undefined;
  let reconciler: NodeJS.Timeout | undefined;
  let sqs: SQSClient | undefined;
  /** Where the admin CLI's `--local` finds this runtime; named once written (a closed server has no port to name it by). */
  let stateFile: string | undefined;

  let stopping = false;
  const stop = async () => {
    stopping = true;
    clearInterval(reconciler);
    await streamReaders?.stop();
    await poller?.stop();
    await webhookPoller?.stop();
    // Reports the sandbox still owes land while the server still listens (it retries failed ones).
    if (poller) {
      const { settleProviders } = await import('../../lambdas/domain/providers/provider-for');
      await settleProviders().catch(() => undefined);
    }
    if (server) await closeServer(server);
    if (functionUrlServer) await closeServer(functionUrlServer);
    sqs?.destroy();
    await owned.sqs?.stop();
    await owned.dynamodb?.stop();
    if (stateFile) rmSync(stateFile, { force: true });
  };

  try {
    const dynamodbEndpoint = options.dynamodbEndpoint ?? (owned.dynamodb = await startDynamoDbLocal({ outlivesInterrupt: true, ...(options.dataDir ? { dataDir: options.dataDir } : {}) })).endpoint;
    const sqsEndpoint = options.sqsEndpoint ?? (owned.sqs = await startSqsEmulator()).endpoint;
    const region = process.env.AWS_REGION ?? LOCAL_REGION;
    const tableName = options.tableName ?? `${prefix}-table`;

    // The pollers' clients, as Lambda's event sources: no SDK call log, as the functions' clients have none (decision 120).
    const dynamodb = withoutCallLog(new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials: LOCAL_CREDENTIALS }));
    sqs = withoutCallLog(new SQSClient({ endpoint: sqsEndpoint, region, credentials: LOCAL_CREDENTIALS }));
    await ensureTable(dynamodb, tableName);
    const { queueUrl, queueArn, dlqUrl } = await createDispatchQueues(sqs, prefix);
    const webhookQueues = await createWebhookQueues(sqs, prefix);
    // The port is fixed before the handlers load: the sandbox's callback URL is part of their configuration.
    const port = options.port || (await freePort());
    const host = options.host ?? '127.0.0.1';
    const url = `http://${host}:${port}`;
    const onError = options.onError ?? ((error: unknown) => console.error(error));
    // The function URL listens first, on a port of its own, so its address is in the handlers' configuration; it serves once they load.
    let callbacks: FunctionUrlHandler | undefined;
    if (options.webhookFrontDoor === 'functionUrl') {
      const { createFunctionUrlServer } = await import('./function-url-server');
      functionUrlServer = createFunctionUrlServer('whatsappCallbacks', (event, context) => callbacks!(event, context), onError);
      await listen(functionUrlServer, 0, host);
    }
    const webhookUrl = functionUrlServer ? `http://${host}:${portOf(functionUrlServer)}${pathOf(routes.whatsappWebhook)}` : `${url}${pathOf(routes.whatsappWebhook)}`;

    // Handlers read their configuration once, at import, as a Lambda container does at cold
    // start; so everything below the environment is imported only after it is set.
    Object.assign(process.env, {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? LOCAL_CREDENTIALS.secretAccessKey,
      TABLE_NAME: tableName,
      QUEUE_URL: queueUrl,
      WEBHOOK_QUEUE_URL: webhookQueues.queueUrl,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      DYNAMODB_REQUEST_TIMEOUT_MS: process.env.DYNAMODB_REQUEST_TIMEOUT_MS ?? String(LOCAL_TABLE_REQUEST_TIMEOUT_MS),
      SQS_ENDPOINT: sqsEndpoint,
      // Local stand-ins for the WhatsApp secret; the sandbox signs its reports with the app secret.
      WHATSAPP_APP_SECRET: process.env.WHATSAPP_APP_SECRET ?? LOCAL_WHATSAPP.appSecret,
      WHATSAPP_VERIFY_TOKEN: process.env.WHATSAPP_VERIFY_TOKEN ?? LOCAL_WHATSAPP.verifyToken,
      SANDBOX_CALLBACK_URL: webhookUrl,
      CURSOR_SECRET: process.env.CURSOR_SECRET ?? LOCAL_CURSOR_SECRET,
      // This process outlives each consumer batch; stop() waits for the reports instead.
      AWAIT_PROVIDER_REPORTS: 'false',
      // Receivers on this machine (http://127.0.0.1, http://localhost) may take webhook events.
      WEBHOOK_ALLOW_LOCAL_URLS: 'true',
      // Metrics are CloudWatch's business: no EMF lines in the local runtime's output.
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    });

    const { config } = await import('../../lambdas/shared/config');
    if (config.TABLE_NAME !== tableName || config.DYNAMODB_ENDPOINT !== dynamodbEndpoint) {
      throw new Error('Handler configuration was loaded before the local runtime set the environment: import lambdas/ modules only after startLocalRuntime');
    }
    const { applySeed } = await import('./seed');
    await applySeed(readSeed(options.seedPath ?? DEMO_SEED_PATH), createStore({ tableName, region, endpoint: dynamodbEndpoint, credentials: LOCAL_CREDENTIALS }));

    const metered = options.invoke ?? directly;
    const inOwnContext = options.isolateInvocations ? isolateInvocations() : undefined;
    const invoke: Invoke = inOwnContext ? (functionName, invocation, event) => inOwnContext(() => metered(functionName, invocation, event)) : metered;
    const loaded: LoadedRoute[] = [];
    for (const [id, definition] of routeEntries) {
      const module = (await import(join(PROJECT_ROOT, 'lambdas', 'handlers', definition.handler))) as { handler: ApiHandler };
      // Every argument is passed on: a streamed route's handler is also given the response stream.
      const handler: ApiHandler = (...args) => invoke(id, () => module.handler(...args), args[0]);
      loaded.push({ id, definition, handler });
    }
    if (options.consumer ?? true) {
      const deliver = (await import('../../lambdas/handlers/deliver')) as { handler: SqsHandler };
      poller = startQueuePoller({ sqs, queueUrl, queueArn, region, handler: (event, context) => invoke('deliver', () => deliver.handler(event, context), event), onError });
    }
    // The table's stream readers run as deployed, whoever runs the deliver consumer: delivery
    // events are written from the stream (decision 112), and webhook events go out through it,
    // then the webhook-events queue.
    if (options.streamReaders ?? true) {
      streamReaders = await startStreamReaders({ dynamodb, dynamodbEndpoint, region, tableName, invoke, onError, reportsWindowSeconds: options.reportsWindowSeconds });
    }
    const { webhookQueueSettings } = await import('../../lambdas/shared/webhook-queue-settings');
    const deliverEvents = (await import('../../lambdas/handlers/deliver-webhook-event')) as { handler: SqsHandler };
    webhookPoller = startQueuePoller({
      sqs,
      queueUrl: webhookQueues.queueUrl,
      queueArn: webhookQueues.queueArn,
      region,
      handler: (event, context) => invoke('deliver-webhook-event', () => deliverEvents.handler(event, context), event),
      settings: webhookQueueSettings,
      functionName: 'deliver-webhook-event',
      onError,
    });
    dynamodb.destroy();
    const { reconcile } = await import('../../lambdas/domain/delivery/reconcile');
    reconciler = setInterval(() => void invoke('reconcile', () => reconcile(new Date())).catch(onError), RECONCILE_EVERY_MS);

    if (functionUrlServer) {
      const { handler } = (await import('../../lambdas/handlers/whatsapp-callbacks')) as { handler: FunctionUrlHandler };
      callbacks = (event, context) => invoke('whatsappCallbacks', () => handler(event, context), event);
    }
    // Listening last: the first request that gets an answer finds everything in place.
    const { createApiServer } = await import('./http-server');
    // The committed document, which a unit test holds equal to what the code generates.
    server = createApiServer(loaded, onError, { documents: { '/openapi.json': readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8') }, stopping: () => stopping });
    await listen(server, port, host);

    mkdirSync(join(PROJECT_ROOT, '.messaging'), { recursive: true });
    const webhookQueueUrl = webhookQueues.queueUrl;
    const webhookDlqUrl = webhookQueues.dlqUrl;
    stateFile = stateFilePath(port);
    writeFileSync(stateFile, JSON.stringify({ url, tableName, region, dynamodbEndpoint, queueUrl, dlqUrl, webhookQueueUrl, webhookDlqUrl, sqsEndpoint, pid: process.pid }, null, 2));

    return { url, port, webhookUrl, tableName, queueUrl, queueArn, dlqUrl, webhookQueueUrl, webhookDlqUrl, dynamodbEndpoint, sqsEndpoint, region, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => fail(error.code === 'EADDRINUSE' ? portInUse(port, host) : error));
    server.listen(port, host, done);
  });
}

const portInUse = (port: number, host: string) => new LocalRuntimeError(`PORT ${port} is in use on ${host}: stop what holds it, or set PORT to another port`);

/**
 * Listens on the port for a moment: what the server will do once everything else has started
 * (`npm start` asks first, so a port in use is told before DynamoDB Local starts).
 */
export async function assertPortFree(port: number, host: string): Promise<void> {
  const probe = createNetServer();
  await listen(probe as unknown as Server, port, host);
  await new Promise((resolve) => probe.close(resolve));
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

interface StreamReaders {
  stop(): Promise<void>;
}

/** The table's two stream readers, as deployed: the webhook-events publisher and the report projection (decision 113). */
async function startStreamReaders(options: {
  dynamodb: DynamoDBClient;
  dynamodbEndpoint: string;
  region: string;
  tableName: string;
  invoke: Invoke;
  onError: (error: unknown) => void;
  reportsWindowSeconds: number | undefined;
}): Promise<StreamReaders> {
  const { dynamodb, region, tableName, invoke, onError } = options;
  const streams = withoutCallLog(new DynamoDBStreamsClient({ endpoint: options.dynamodbEndpoint, region, credentials: LOCAL_CREDENTIALS }));
  const publish = (await import('../../lambdas/handlers/publish-webhook-events')) as { handler: StreamHandler };
  // Both read the same table's stream with the same clients.
  const source = { dynamodb, streams, region, tableName, onError };
  const publisher = await startStreamPoller({
    ...source,
    functionName: 'publish-webhook-events',
    filter: isPublishable,
    consumer: { handler: (event, context) => invoke('publish-webhook-events', () => publish.handler(event, context), event) },
  });
  const projectReports = (await import('../../lambdas/handlers/project-reports')) as { handler: WindowHandler };
  const reportProjection = await startStreamPoller({
    ...source,
    functionName: 'project-reports',
    filter: isReportsChange,
    consumer: {
      windowSeconds: options.reportsWindowSeconds ?? reportProjectionSettings.tumblingWindowSeconds,
      windowHandler: (event, context) => invoke('project-reports', () => projectReports.handler(event, context), event),
    },
  }).catch(async (error: unknown) => {
    await publisher.stop();
    streams.destroy();
    throw error;
  });
  return {
    async stop() {
      await publisher.stop();
      await reportProjection.stop();
      streams.destroy();
    },
  };
}
