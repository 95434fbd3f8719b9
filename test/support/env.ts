import { randomUUID } from 'node:crypto';
import { LOCAL_TABLE_REQUEST_TIMEOUT_MS } from '../../lib/local/paths';

// Runs before each test file, in that file's own copy of process.env and before any module is
// loaded, just as a Lambda's environment is in place before its cold start.
process.env.AWS_REGION = 'ap-southeast-3';
process.env.AWS_ACCESS_KEY_ID = 'test';
process.env.AWS_SECRET_ACCESS_KEY = 'test';
// Logged at a level worth reading: test/support/quiet-environment.js shows it for failing tests only.
process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
process.env.POWERTOOLS_DEV = 'false';
// No EMF lines in test output; test/support/metrics.ts turns them back on to capture them.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
/** A table of this file's own: integration files never see each other's items. */
process.env.TABLE_NAME = `test-${randomUUID()}`;
process.env.QUEUE_URL = 'https://sqs.ap-southeast-3.amazonaws.com/000000000000/test-dispatch';
process.env.WEBHOOK_QUEUE_URL = 'https://sqs.ap-southeast-3.amazonaws.com/000000000000/test-webhook-events';
if (process.env.TEST_DYNAMODB_ENDPOINT) process.env.DYNAMODB_ENDPOINT = process.env.TEST_DYNAMODB_ENDPOINT;
/** DynamoDB Local shares the machine with every other test file: the local runtime's patience (decision 166). */
process.env.DYNAMODB_REQUEST_TIMEOUT_MS = String(LOCAL_TABLE_REQUEST_TIMEOUT_MS);
if (process.env.TEST_SQS_ENDPOINT) process.env.SQS_ENDPOINT = process.env.TEST_SQS_ENDPOINT;
/** Stand-ins for the WhatsApp app secret and verify token (deployed, they live in Secrets Manager). */
process.env.WHATSAPP_APP_SECRET = 'test-app-secret';
process.env.WHATSAPP_VERIFY_TOKEN = 'test-verify-token';
/** Fast sandbox reports keep end-to-end delivery tests short. */
process.env.SANDBOX_REPORT_DELAY_MS = '100';
process.env.CURSOR_SECRET = 'test-cursor-signing-key-000000';
/** The usage-plan authorizer's key for workspaces without their own (a stack with usage plans sets it). */
process.env.FALLBACK_USAGE_KEY = 'test-fallback-usage-key-0000';
