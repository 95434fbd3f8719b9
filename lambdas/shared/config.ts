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
