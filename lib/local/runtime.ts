import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { routeEntries } from '../../lambdas/routes';
import { createStore } from '../../lambdas/shared/store';
import { ensureTable } from './bootstrap';
import { DEMO_SEED_PATH, LOCAL_CREDENTIALS, PROJECT_ROOT, stateFilePath } from './paths';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { readSeed } from './seed-file';
import type { ApiHandler, LoadedRoute } from './http-server';
import { createDispatchQueues, startSqsEmulator, type SqsEmulator } from './sqs-emulator';

const LOCAL_REGION = 'ap-southeast-3';

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
  onError?: (error: unknown) => void;
}

export interface LocalRuntime {
  url: string;
  port: number;
  tableName: string;
  queueUrl: string;
  dlqUrl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  region: string;
  stop(): Promise<void>;
}

/**
 * The whole system on one machine (DESIGN §2): DynamoDB Local, the SQS emulator with the
 * dispatch queue and DLQ, the seed, and every route's handler behind an HTTP server. It answers
 * only once all of these are in place, so `GET /health` doubles as the readiness check.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const prefix = options.namePrefix ?? 'messaging-local';
  const owned: { dynamodb?: DynamoDbLocal; sqs?: SqsEmulator } = {};
  let server: Server | undefined;

  const stop = async () => {
    if (server) await closeServer(server);
    await owned.sqs?.stop();
    await owned.dynamodb?.stop();
    if (server) rmSync(stateFilePath(portOf(server)), { force: true });
  };

  try {
    const dynamodbEndpoint = options.dynamodbEndpoint ?? (owned.dynamodb = await startDynamoDbLocal(options.dataDir ? { dataDir: options.dataDir } : {})).endpoint;
    const sqsEndpoint = options.sqsEndpoint ?? (owned.sqs = await startSqsEmulator()).endpoint;
    const region = process.env.AWS_REGION ?? LOCAL_REGION;
    const tableName = `${prefix}-table`;

    const dynamodb = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials: LOCAL_CREDENTIALS });
    const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials: LOCAL_CREDENTIALS });
    await ensureTable(dynamodb, tableName);
    const { queueUrl, dlqUrl } = await createDispatchQueues(sqs, prefix);
    dynamodb.destroy();
    sqs.destroy();

    // Handlers read their configuration once, at import, as a Lambda container does at cold
    // start; so everything below the environment is imported only after it is set.
    Object.assign(process.env, {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? LOCAL_CREDENTIALS.secretAccessKey,
      TABLE_NAME: tableName,
      QUEUE_URL: queueUrl,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      SQS_ENDPOINT: sqsEndpoint,
    });

    const { config } = await import('../../lambdas/shared/config');
    if (config.TABLE_NAME !== tableName || config.DYNAMODB_ENDPOINT !== dynamodbEndpoint) {
      throw new Error('Handler configuration was loaded before the local runtime set the environment: import lambdas/ modules only after startLocalRuntime');
    }
    const { applySeed } = await import('./seed');
    await applySeed(readSeed(options.seedPath ?? DEMO_SEED_PATH), createStore({ tableName, region, endpoint: dynamodbEndpoint, credentials: LOCAL_CREDENTIALS }));

    const routes: LoadedRoute[] = [];
    for (const [id, definition] of routeEntries) {
      const module = (await import(join(PROJECT_ROOT, 'lambdas', 'handlers', definition.handler))) as { handler: ApiHandler };
      routes.push({ id, definition, handler: module.handler });
    }
    const { createApiServer } = await import('./http-server');
    server = createApiServer(routes, options.onError ?? ((error) => console.error(error)));
    const listening = server;
    await new Promise<void>((done, fail) => {
      listening.once('error', fail);
      listening.listen(options.port, options.host ?? '127.0.0.1', done);
    });
    const port = portOf(server);
    const url = `http://${options.host ?? '127.0.0.1'}:${port}`;

    mkdirSync(join(PROJECT_ROOT, '.messaging'), { recursive: true });
    writeFileSync(stateFilePath(port), JSON.stringify({ url, tableName, region, dynamodbEndpoint, queueUrl, dlqUrl, sqsEndpoint, pid: process.pid }, null, 2));

    return { url, port, tableName, queueUrl, dlqUrl, dynamodbEndpoint, sqsEndpoint, region, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
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
