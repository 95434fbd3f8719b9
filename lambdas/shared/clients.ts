import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from './config';
import { documentClientOptions } from './store';

/**
 * AWS clients, created once per container. Repositories take them as parameters with these
 * as defaults, so tests can pass their own or mock these with aws-sdk-client-mock.
 */
export const dynamo = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  documentClientOptions,
);

export const sqs = new SQSClient({ region: config.AWS_REGION, endpoint: config.SQS_ENDPOINT });
