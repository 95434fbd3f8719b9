import type { Writable } from 'node:stream';

/**
 * Lambda's Node runtime defines a global `awslambda` for response streaming; Middy's
 * `executionModeStreamifyResponse` uses it when a handler is built. Outside Lambda (the local runtime, tests)
 * this stand-in does the same job: the caller passes a Writable as the second argument, and
 * `HttpResponseStream.from` hands it the status and headers before the body.
 */
export interface HttpMetadataSink extends Writable {
  setHttpMetadata?(metadata: Metadata): void;
}

type Metadata = { statusCode?: number; headers?: Record<string, string> };

interface StreamingGlobal {
  streamifyResponse?: <T>(handler: T) => T;
  HttpResponseStream?: { from(stream: HttpMetadataSink, metadata: Metadata): HttpMetadataSink };
}

// Other libraries (the AWS SDK's invoke store) may have created the global with other members.
const scope = globalThis as unknown as { awslambda?: StreamingGlobal };
const lambda = (scope.awslambda ??= {});
lambda.streamifyResponse ??= <T>(handler: T): T => handler;
lambda.HttpResponseStream ??= {
  from(stream, metadata) {
    stream.setHttpMetadata?.(metadata);
    return stream;
  },
};
