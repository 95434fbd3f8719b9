import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** An event as the messaging API posts it (docs/api.md#webhook-events). */
export interface ReceivedEvent {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

/**
 * A webhook receiver, as small as one can be: it verifies each POST with the `standardwebhooks`
 * package (signature and timestamp, every secret of a rotation accepted), answers 204 and hands
 * the event on, drops a `webhook-id` it has seen (delivery is at least once), and answers 401 to
 * anything it cannot verify, which the API retries. `npm run webhook-receiver` runs it.
 */
export function startWebhookReceiver(options: { secret: string; port: number; host?: string; onEvent: (event: ReceivedEvent) => void }): Promise<Server & { url: string }> {
  const verifier = new Webhook(options.secret);
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: ReceivedEvent;
      try {
        event = verifier.verify(body, request.headers as Record<string, string>) as ReceivedEvent;
      } catch (error) {
        response.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
        return;
      }
      if (!seen.has(event.id)) {
        seen.add(event.id);
        options.onEvent(event);
      }
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      resolve(Object.assign(server, { url: `http://${options.host ?? '127.0.0.1'}:${port}/hooks` }));
    });
  });
}
