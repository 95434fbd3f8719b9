import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from '../../shared/zod';
import { config } from '../../shared/config';

const credentialsSchema = z.object({
  accessToken: z.string().check(z.minLength(1)),
  appSecret: z.string().check(z.minLength(1)),
  verifyToken: z.string().check(z.minLength(1)),
  phoneNumberId: z.optional(z.string().check(z.minLength(1))),
});

export type WhatsAppCredentials = z.infer<typeof credentialsSchema>;

/** Secrets are re-read at most every five minutes, so a rotation applies without a deploy. */
const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The WhatsApp app's credentials: from Secrets Manager when deployed (WHATSAPP_SECRET_NAME, cached
 * per container by Powertools), from the environment in the local runtime and tests. The admin
 * CLI names the deployed stack's secret itself.
 */
export async function whatsAppCredentials(secretName = config.WHATSAPP_SECRET_NAME): Promise<WhatsAppCredentials> {
  if (secretName) {
    const secret = await getSecret(secretName, { transform: 'json', maxAge: SECRET_MAX_AGE_SECONDS });
    const parsed = credentialsSchema.safeParse(secret);
    if (!parsed.success) throw new Error(`Secret ${secretName} is not { accessToken, appSecret, verifyToken, phoneNumberId? }`);
    return parsed.data;
  }
  return credentialsSchema.parse({
    accessToken: config.WHATSAPP_ACCESS_TOKEN ?? 'local-access-token',
    appSecret: config.WHATSAPP_APP_SECRET,
    verifyToken: config.WHATSAPP_VERIFY_TOKEN,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
  });
}
