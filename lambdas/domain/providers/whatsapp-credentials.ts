import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from '../../shared/zod';
import { config } from '../../shared/config';

/**
 * A token an HTTP header can carry: visible ASCII, no space. One pasted with a zero-width space, an
 * ellipsis or a line break is refused here, where `fetch` would refuse to build the request (after
 * the dispatch was claimed, quoting the whole token in its error).
 */
const USABLE_TOKEN = /^[\x21-\x7e]+$/;

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
  if (parsed.success) return usable(parsed.data, 'WHATSAPP_ACCESS_TOKEN');
  const missing = [...new Set(parsed.error.issues.map((issue) => VARIABLE_OF[issue.path[0] as keyof WhatsAppCredentials]))];
  throw new Error(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: without WHATSAPP_SECRET_NAME, the WhatsApp credentials come from the environment`);
}

/** The access token holds a character no HTTP header may carry: every WhatsApp call fails alike until it is replaced. */
export class UnusableTokenError extends Error {
  override name = 'UnusableTokenError';
}

/** The credentials, once their token is one a request can carry; the refusal names where it came from, never the token. */
function usable(credentials: WhatsAppCredentials, source: string): WhatsAppCredentials {
  if (USABLE_TOKEN.test(credentials.accessToken)) return credentials;
  throw new UnusableTokenError(`The access token in ${source} holds a space, a line break or a character outside ASCII (pasted with it?): paste it again`);
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
  return usable(parsed.data, `secret ${secretName}`);
}

/** The variable each credential comes from when no secret is named. */
const VARIABLE_OF: Record<keyof WhatsAppCredentials, string> = {
  accessToken: 'WHATSAPP_ACCESS_TOKEN',
  appSecret: 'WHATSAPP_APP_SECRET',
  verifyToken: 'WHATSAPP_VERIFY_TOKEN',
  phoneNumberId: 'WHATSAPP_PHONE_NUMBER_ID',
};
