import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A local stand-in for the Graph API: answers what a test scripts and records what it got. With
 * `templatePages` it serves a WhatsApp Business Account's templates as Meta does: the first page
 * without `after`, each next one for the previous page's `paging.cursors.after`.
 */
export interface GraphRequest {
  method: string;
  /** Path and query, e.g. `/v26.0/1111/messages`. */
  url: string;
  authorization: string | undefined;
  body: unknown;
}
export interface GraphAnswer {
  status: number;
  /** JSON, or a string sent as it is (a gateway's HTML page). */
  body: unknown;
  delayMs?: number;
  /** Close the connection without an answer, once the whole request is read (WhatsApp has it). */
  hangUp?: boolean;
}
export interface GraphStub {
  /** e.g. http://127.0.0.1:PORT/v26.0 */
  baseUrl: string;
  received: GraphRequest[];
  /** What the stub answers; replace it per test. */
  answer: (request: GraphRequest) => GraphAnswer;
  close(): Promise<void>;
}

export const GRAPH_VERSION = 'v26.0';

export async function startGraphStub(answer: GraphStub['answer'] = () => ({ status: 404, body: { error: { code: 100, message: 'Unknown path' } } })): Promise<GraphStub> {
  const stub: GraphStub = {
    baseUrl: '',
    received: [],
    answer,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const received = { method: request.method!, url: request.url!, authorization: request.headers.authorization, body: raw ? (JSON.parse(raw) as unknown) : undefined };
      stub.received.push(received);
      const { status, body, delayMs = 0, hangUp } = stub.answer(received);
      if (hangUp) return response.socket!.destroy();
      const [contentType, text] = typeof body === 'string' ? ['text/html', body] : ['application/json', JSON.stringify(body)];
      setTimeout(() => response.writeHead(status, { 'content-type': contentType }).end(text), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${GRAPH_VERSION}`;
  return stub;
}

interface TemplatePage {
  data: unknown[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/** Serves `GET /{businessAccountId}/message_templates` page by page, as Meta pages it; anything else is 404. */
export function templatePages(businessAccountId: string, pages: TemplatePage[], accessToken = 'token-1'): GraphStub['answer'] {
  return (request) => {
    const url = new URL(request.url, 'http://graph.local');
    if (request.method !== 'GET' || url.pathname !== `/${GRAPH_VERSION}/${businessAccountId}/message_templates`) {
      return { status: 404, body: { error: { code: 100, message: 'Unsupported get request', type: 'GraphMethodException' } } };
    }
    if (request.authorization !== `Bearer ${accessToken}`) return { status: 401, body: readWhatsAppTemplateFixture('error-190.json') };
    const after = url.searchParams.get('after');
    const index = after === null ? 0 : pages.findIndex((_, i) => i > 0 && pages[i - 1]!.paging?.cursors?.after === after);
    if (index < 0) return { status: 400, body: { error: { code: 100, message: 'Invalid cursor' } } };
    return { status: 200, body: pages[index] };
  };
}

/**
 * A template list read before every change the fixtures' webhooks carry (their `entry[].time`, the
 * first 2025-05-01T07:00Z): a sync that reads then leaves them news, where one read now makes them
 * older than its read, and stale (decision 201).
 */
export const READ_BEFORE_TEMPLATE_FIXTURES = new Date('2025-05-01T00:00:00Z');

export function readWhatsAppTemplateFixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'whatsapp-templates', name), 'utf8')) as T;
}
