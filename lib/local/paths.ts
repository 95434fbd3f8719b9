import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-paths';

export { PROJECT_ROOT };
export const DEMO_SEED_PATH = join(PROJECT_ROOT, 'lib', 'local', 'demo-seed.json');

/** Where a running local runtime tells the admin CLI how to reach its table. */
export const stateFilePath = (port: number) => join(PROJECT_ROOT, '.messaging', `local-${port}.json`);

/** DynamoDB Local and the SQS emulator accept any credentials; these keep real ones out of play. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The local runtime's WhatsApp app secret and verify token (deployed, they live in Secrets Manager). */
export const LOCAL_WHATSAPP = { appSecret: 'local-app-secret', verifyToken: 'local-verify-token' };

/** Signs the local runtime's pagination cursors (deployed, a generated secret). */
export const LOCAL_CURSOR_SECRET = 'local-cursor-signing-key-0001';

/**
 * How long the handlers' table calls may go quiet here (`DYNAMODB_REQUEST_TIMEOUT_MS`): DynamoDB Local
 * on a busy machine stalls for seconds, and DynamoDB's 3 s gave up calls it would have answered
 * (decision 166).
 */
export const LOCAL_TABLE_REQUEST_TIMEOUT_MS = 20_000;
