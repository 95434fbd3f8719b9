import './node-check.cjs';
import { z } from 'zod';
import { startWebhookReceiver } from '../lib/webhook-receiver';

/**
 * `npm run webhook-receiver`: a receiver on http://127.0.0.1:$PORT/hooks that prints each verified
 * event, one JSON line each (README, "Receiving events"). WEBHOOK_SECRET is the endpoint's
 * `whsec_…` secret, from the answer that created it.
 */
const env = z
  .object({
    WEBHOOK_SECRET: z.string().startsWith('whsec_', 'WEBHOOK_SECRET must be the endpoint’s whsec_… secret'),
    PORT: z.coerce.number().int().min(0).max(65_535).default(4000),
  })
  .parse(process.env);

void startWebhookReceiver({ secret: env.WEBHOOK_SECRET, port: env.PORT, onEvent: (event) => console.log(JSON.stringify(event)) }).then((server) => {
  console.log(`Receiving webhook events on ${server.url} (Ctrl-C stops)`);
});
