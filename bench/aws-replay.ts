import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { HttpRequest, HttpResponse } from '@smithy/types';

/** One AWS answer as it came over the wire. */
interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * AWS answers recorded from the emulators, to replay without a network: by operation and request
 * body when the same request comes again (a key lookup), else the operation's latest answer (a
 * write whose body carries fresh ids). What a benchmark then times is our code and the SDK's
 * own work (serialising, signing, parsing), with the network and the emulators at zero cost.
 */
export class AwsRecording {
  private readonly exact = new Map<string, Answer>();
  private readonly latest = new Map<string, Answer>();

  record(operation: string, body: string, answer: Answer): void {
    this.exact.set(`${operation}\n${body}`, answer);
    this.latest.set(operation, answer);
  }

  find(operation: string, body: string): Answer | undefined {
    const answer = this.exact.get(`${operation}\n${body}`) ?? this.latest.get(operation);
    return answer && operation === 'AmazonSQS.SendMessage' ? acknowledge(answer, body) : answer;
  }
}

/** SQS answers a send with the MD5 of the body it received, and the SDK checks it. */
function acknowledge(answer: Answer, requestBody: string): Answer {
  const { MessageBody } = JSON.parse(requestBody) as { MessageBody?: string };
  const output = JSON.parse(answer.body.toString()) as Record<string, unknown>;
  const body = JSON.stringify({ ...output, MessageId: randomUUID(), MD5OfMessageBody: createHash('md5').update(MessageBody ?? '').digest('hex') });
  return { ...answer, body: Buffer.from(body) };
}

/** One AWS request as it went over the wire: `DynamoDB_20120810.Query`, `AmazonSQS.SendMessage`, and its JSON body. */
export interface AwsRequest {
  operation: string;
  body: string;
}

/** DynamoDB and SQS (JSON protocol) name the operation in X-Amz-Target. */
const operationOf = (headers: Record<string, string | string[] | undefined>) => String(headers['x-amz-target'] ?? 'unknown');

const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);
const keptHeaders = (headers: Iterable<[string, string]>) => Object.fromEntries([...headers].filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));

async function readBody(stream: AsyncIterable<Buffer | Uint8Array | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/**
 * A DynamoDB + SQS endpoint on loopback for handler processes the benchmark starts. Recording,
 * it forwards each request to the real emulator and keeps the answer; replaying, it answers from
 * the recording at once. The same server serves both sides of a comparison.
 */
export async function startAwsStub(upstream: { dynamodb: string; sqs: string }) {
  const recording = new AwsRecording();
  let mode: 'record' | 'replay' = 'record';
  // What the process being recorded asked, grouped as it asked: a request that comes while
  // another is being answered joins that one's group.
  let calls: AwsRequest[][] = [];
  let answering = 0;
  const server: Server = createServer((request: IncomingMessage, response) => {
    void (async () => {
      const body = await readBody(request);
      const operation = operationOf(request.headers);
      if (mode === 'record') {
        if (answering === 0) calls.push([]);
        calls.at(-1)!.push({ operation, body: body.toString() });
      }
      answering++;
      try {
        let answer = mode === 'replay' ? recording.find(operation, body.toString()) : undefined;
        if (!answer) {
          const target = operation.startsWith('AmazonSQS.') ? upstream.sqs : upstream.dynamodb;
          const headers = Object.entries(request.headers).flatMap(([name, value]) => (typeof value === 'string' && name !== 'host' && !HOP_HEADERS.has(name) ? [[name, value] as [string, string]] : []));
          const forwarded = await fetch(new URL(request.url ?? '/', target), { method: request.method ?? 'POST', headers, body });
          answer = { statusCode: forwarded.status, headers: keptHeaders(forwarded.headers), body: Buffer.from(await forwarded.arrayBuffer()) };
          recording.record(operation, body.toString(), answer);
        }
        response.writeHead(answer.statusCode, { ...answer.headers, 'content-length': answer.body.length });
        response.end(answer.body);
      } finally {
        answering--;
      }
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    replay(): void {
      mode = 'replay';
    },
    /** Records from now on, and starts a new list of the calls made. */
    record(): void {
      mode = 'record';
      calls = [];
    },
    /** The calls made since `record()`, in groups made together. */
    recordedCalls: (): AwsRequest[][] => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface RequestHandlerLike {
  handle(request: HttpRequest, options?: unknown): Promise<{ response: HttpResponse }>;
}

/**
 * Swaps an SDK client's network for the recording, in process: `record()` passes requests to the
 * client's own handler and keeps the answers, `replay()` answers from them without I/O.
 */
export function replayNetwork(client: { config: { requestHandler: unknown } }) {
  const recording = new AwsRecording();
  const real = client.config.requestHandler as RequestHandlerLike;
  let mode: 'record' | 'replay' = 'record';
  let misses = 0;
  const handler: RequestHandlerLike = {
    async handle(request, options) {
      const operation = request.headers['x-amz-target'] ?? 'unknown';
      const body = bodyText(request.body);
      let answer = mode === 'replay' ? recording.find(operation, body) : undefined;
      if (!answer) {
        if (mode === 'replay') misses++;
        const { response } = await real.handle(request, options);
        answer = { statusCode: response.statusCode, headers: response.headers, body: await readBody(response.body as Readable) };
        recording.record(operation, body, answer);
      }
      return { response: { statusCode: answer.statusCode, headers: { ...answer.headers }, body: Readable.from([answer.body]) } };
    },
  };
  client.config.requestHandler = handler;
  return {
    record(): void {
      mode = 'record';
    },
    replay(): void {
      mode = 'replay';
    },
    /** Requests that went to the network while replaying (no recorded answer for them). */
    misses: () => misses,
  };
}

const utf8 = new TextDecoder();

/**
 * A request body as text: the SDK hands some clients' bodies over as bytes (SQS), others as a
 * string. Decoded, not `Buffer.from(body)`: that calls `valueOf()`, which the SDK's JSON bodies
 * (a Uint8Array subclass) answer with a warning that string methods on them will one day throw.
 */
function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return utf8.decode(body);
  return '';
}
