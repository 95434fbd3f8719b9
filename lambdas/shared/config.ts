import { z } from 'zod';

/**
 * The only reader of `process.env`. Every function gets just the variables its grants set
 * (see lib/constructs/app-function.ts), so resource names are optional here and `required()`
 * fails loudly, naming the variable, when a module needs one its function was not given.
 */
const schema = z.object({
  AWS_REGION: z.string().min(1).default('ap-southeast-3'),
  TABLE_NAME: z.string().min(1).optional(),
  QUEUE_URL: z.url().optional(),
  /** Local runtime and tests only: DynamoDB Local / SQS emulator endpoints. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  /** How long a key lookup is trusted; bounds how late a revocation takes effect. */
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(60).default(30),

  /** Secrets Manager secret with { accessToken, appSecret, verifyToken, phoneNumberId? } (deployed). */
  WHATSAPP_SECRET_NAME: z.string().min(1).optional(),
  /** The same settings from the environment, for the local runtime and tests only. */
  WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional(),
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional(),
  WHATSAPP_PHONE_NUMBER_ID: z.string().min(1).optional(),
  GRAPH_API_BASE_URL: z.url().default('https://graph.facebook.com/v21.0'),
  /** A provider call that takes longer has an unknown outcome. */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(20_000).default(8_000),
  /** Where the sandbox provider posts its status callbacks (our own webhook). */
  SANDBOX_CALLBACK_URL: z.url().optional(),
  SANDBOX_REPORT_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(300),
  /**
   * Whether a consumer invocation waits for the sandbox's delayed reports before it returns. On
   * Lambda it must (a returned invocation is frozen, its timers with it); the local runtime's
   * process lives on, so it does not hold up the queue for them.
   */
  AWAIT_PROVIDER_REPORTS: z.enum(['true', 'false']).default('true'),
});

export type Config = z.infer<typeof schema>;

const parsed = schema.safeParse(process.env);
if (!parsed.success) {
  throw new Error(`Invalid environment: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
}

export const config: Readonly<Config> = Object.freeze(parsed.data);

type ResourceName = 'TABLE_NAME' | 'QUEUE_URL';

/** A resource setting this function cannot run without. */
export function required(name: ResourceName): string {
  const value = config[name];
  if (!value) throw new Error(`${name} is not set: this function was deployed without access to that resource`);
  return value;
}
