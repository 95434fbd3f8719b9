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
  if (secretName) return credentialsInSecret(secretName, await getSecret(secretName, { maxAge: SECRET_MAX_AGE_SECONDS }));
  const parsed = credentialsSchema.safeParse({
    accessToken: config.WHATSAPP_ACCESS_TOKEN ?? 'local-access-token',
    appSecret: config.WHATSAPP_APP_SECRET,
    verifyToken: config.WHATSAPP_VERIFY_TOKEN,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
  });
  if (parsed.success) return parsed.data;
  const missing = [...new Set(parsed.error.issues.map((issue) => VARIABLE_OF[issue.path[0] as keyof WhatsAppCredentials]))];
  throw new Error(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: without WHATSAPP_SECRET_NAME, the WhatsApp credentials come from the environment`);
}

/**
 * The credentials a secret's value holds. A value that does not read is refused without quoting it:
 * a JSON parser's message does (the start of an access token), and it would reach the logs.
 */
export function credentialsInSecret(secretName: string, value: unknown): WhatsAppCredentials {
  const refused = () => new Error(`Secret ${secretName} is not JSON { accessToken, appSecret, verifyToken, phoneNumberId? }`);
  let json: unknown;
  try {
    json = typeof value === 'string' ? JSON.parse(value) : undefined;
  } catch {
    throw refused();
  }
  const parsed = credentialsSchema.safeParse(json);
  if (!parsed.success) throw refused();
  return parsed.data;
}

/** The variable each credential comes from when no secret is named. */
const VARIABLE_OF: Record<keyof WhatsAppCredentials, string> = {
  accessToken: 'WHATSAPP_ACCESS_TOKEN',
  appSecret: 'WHATSAPP_APP_SECRET',
  verifyToken: 'WHATSAPP_VERIFY_TOKEN',
  phoneNumberId: 'WHATSAPP_PHONE_NUMBER_ID',
};
