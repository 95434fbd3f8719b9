import './node-check.cjs';
import * as z from 'zod';
import { portSetting, readSettings } from '../lib/entry-settings';
import { startWebhookReceiver } from '../lib/webhook-receiver';

/**
 * `npm run webhook-receiver`: a receiver on http://127.0.0.1:$PORT/hooks that prints each verified
 * event, one JSON line each (README, "Receiving events"). WEBHOOK_SECRET is the endpoint's
 * `whsec_…` secret, from the answer that created it.
 */
const env = readSettings(
  'npm run webhook-receiver',
  z.object({
    WEBHOOK_SECRET: z.string({ error: 'set it to the endpoint’s whsec_… secret' }).startsWith('whsec_', 'the endpoint’s whsec_… secret'),
    PORT: portSetting(4000),
  }),
);

void startWebhookReceiver({ secret: env.WEBHOOK_SECRET, port: env.PORT, onEvent: (event) => console.log(JSON.stringify(event)) }).then((server) => {
  console.log(`Receiving webhook events on ${server.url} (Ctrl-C stops)`);
});
