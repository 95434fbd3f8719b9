import './lambda-streaming';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';

/**
 * Middy's streaming execution mode, with the `awslambda` stand-in it needs outside Lambda. A
 * streaming route's handler passes it to the stack (StackOptions), so only that bundle carries it.
 */
export const streamingResponse = executionModeStreamifyResponse;
