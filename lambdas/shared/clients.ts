import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config';
import { documentClientOptions, withoutCallLog } from './store';

/**
 * A client's settings; a function so the clients below stay free of side effects for the bundler
 * (an object spread in their arguments is not, and kept the SQS client in every bundle).
 */
function clientConfig(endpoint: 'DYNAMODB_ENDPOINT' | 'SQS_ENDPOINT', requestHandler?: CallTimeouts) {
  return { region: config.AWS_REGION, endpoint: config[endpoint], ...(requestHandler ? { requestHandler } : {}) };
}

interface CallTimeouts {
  connectionTimeout: number;
  requestTimeout: number;
  throwOnRequestTimeout: true;
}

/**
 * The table's calls give up on a connection that is not made in a second, or that goes quiet for
 * three (the SDK's `requestTimeout` is the socket's idle time, so a long Query page streaming its
 * answer is not cut off; DynamoDB begins answering within milliseconds). Without them a hung
 * connection held a function until its own timeout: a send answered 504 to a caller who may send
 * again, and a deliver batch failed whole, with the verdicts it held (decisions 161, 162). The SDK
 * tries a timed-out call three times, as it does a dropped one. Against DynamoDB Local the quiet
 * time is longer (`DYNAMODB_REQUEST_TIMEOUT_MS`, decision 166).
 */
const tableCallTimeouts = (): CallTimeouts => ({ connectionTimeout: 1_000, requestTimeout: config.DYNAMODB_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true });

/**
 * AWS clients, created once per container. Repositories take them as parameters with these
 * as defaults, so tests can pass their own or mock these with aws-sdk-client-mock. Marked pure
 * so a bundle leaves out a client its function never uses, and the SDK package behind it.
 */
export const dynamo = /* @__PURE__ */ DynamoDBDocumentClient.from(/* @__PURE__ */ withoutCallLog(/* @__PURE__ */ new DynamoDBClient(/* @__PURE__ */ clientConfig('DYNAMODB_ENDPOINT', /* @__PURE__ */ tableCallTimeouts()))), documentClientOptions);

/**
 * The SDK waits on a connection that never answers for as long as the function lives; a send held
 * so answers 504 after its message may have been taken, and its caller sends again. SQS answers in
 * milliseconds: past these an attempt is an error the SDK retries, and then the send's release
 * decides between 502 and 202 (decision 160).
 */
export const QUEUE_CALL_TIMEOUTS: CallTimeouts = { connectionTimeout: 1_000, requestTimeout: 1_500, throwOnRequestTimeout: true };

export const sqs = /* @__PURE__ */ withoutCallLog(/* @__PURE__ */ new SQSClient(/* @__PURE__ */ clientConfig('SQS_ENDPOINT', QUEUE_CALL_TIMEOUTS)));
