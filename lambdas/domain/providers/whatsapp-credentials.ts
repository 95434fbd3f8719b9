import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import * as z from '../../shared/zod';
import { config } from '../../shared/config';

/**
 * A token an HTTP header can carry: visible ASCII, no space. One pasted with a zero-width space, an
 * ellipsis or a line break is refused here, where `fetch` would refuse to build the request (after
 * the dispatch was claimed, quoting the whole token in its error).
 */
const USABLE_TOKEN = /^[\x21-\x7e]+$/;

const credential = () => z.string().check(z.minLength(1));
const credentialsSchema = z.object({
  accessToken: credential(),
  appSecret: credential(),
  verifyToken: credential(),
  phoneNumberId: z.optional(credential()),
});
/** What a Graph API call needs of a secret, and all the admin CLI's sync reads: a secret given for it may hold nothing else. */
const accessTokenSchema = z.object({ accessToken: credential() });

export type WhatsAppCredentials = z.infer<typeof credentialsSchema>;

/** Secrets are re-read at most every five minutes, so a rotation applies without a deploy. */
const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The WhatsApp app's credentials: from Secrets Manager when deployed (WHATSAPP_SECRET_NAME, cached
 * per container by Powertools), from the environment in the local runtime and tests. The access
 * token is not checked here: the webhook, its handshake and the sandbox read the app secret and the
 * verify token alone, and go on while a token pasted wrong holds the sends (decision 213). What
 * sends the token reads `graphCredentials`.
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
 * The credentials for a Graph API call (a send, a template read or sync), whose Authorization header
 * carries the access token: the same read as `whatsAppCredentials`, refused as UnusableTokenError
 * when no request could carry the token.
 */
export async function graphCredentials(secretName = config.WHATSAPP_SECRET_NAME): Promise<WhatsAppCredentials> {
  const credentials = await whatsAppCredentials(secretName);
  return { ...credentials, accessToken: usable(credentials.accessToken, secretName ? `secret ${secretName}` : 'WHATSAPP_ACCESS_TOKEN') };
}

/** The access token holds a character no HTTP header may carry: every WhatsApp call fails alike until it is replaced. */
export class UnusableTokenError extends Error {
  override name = 'UnusableTokenError';
}

/** The token, once it is one a request can carry; the refusal names where it came from, never the token. */
function usable(accessToken: string, source: string): string {
  if (USABLE_TOKEN.test(accessToken)) return accessToken;
  throw new UnusableTokenError(`The access token in ${source} holds a space, a line break or a character outside ASCII (pasted with it?): paste it again`);
}

/** The credentials the stack's secret holds, as every function reads them. */
export const credentialsInSecret = (secretName: string, value: unknown): WhatsAppCredentials => fieldsInSecret(secretName, value, credentialsSchema);

/**
 * The access token a secret holds, ready to send, whatever else it holds or lacks: the admin CLI's
 * template sync needs nothing else of the WhatsApp app.
 */
export const accessTokenInSecret = (secretName: string, value: unknown): string =>
  usable(fieldsInSecret(secretName, value, accessTokenSchema).accessToken, `secret ${secretName}`);

/**
 * The fields `schema` reads from a secret's value. A value that is not a JSON object is refused
 * without quoting it: a JSON parser's message does (the start of an access token), and it would
 * reach the logs. An object without a field it needs is refused naming the field alone.
 */
function fieldsInSecret<T>(secretName: string, value: unknown, schema: z.ZodMiniType<T>): T {
  let json: unknown;
  try {
    json = typeof value === 'string' ? JSON.parse(value) : undefined;
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(`Secret ${secretName} is not JSON { accessToken, appSecret, verifyToken, phoneNumberId? }`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  // The schema's own field names: an object's other keys are stripped, never named.
  const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
  throw new Error(`Secret ${secretName} has no ${fields.join(' and no ')}`);
}

/** The variable each credential comes from when no secret is named. */
const VARIABLE_OF: Record<keyof WhatsAppCredentials, string> = {
  accessToken: 'WHATSAPP_ACCESS_TOKEN',
  appSecret: 'WHATSAPP_APP_SECRET',
  verifyToken: 'WHATSAPP_VERIFY_TOKEN',
  phoneNumberId: 'WHATSAPP_PHONE_NUMBER_ID',
};
