import type { Node } from 'constructs';
import { z } from 'zod';

/**
 * Deploy-time settings, from CDK context (`cdk.json`, or `-c key=value` on the command line).
 * Parsed once with zod so a typo fails the synth with a clear message instead of deploying.
 */
const schema = z.object({
  stage: z.string().regex(/^[a-z][a-z0-9-]{0,19}$/, 'lower-case letters, digits and "-", starting with a letter'),
  /** `retain` keeps the table and queues when the stack is deleted (production); `destroy` removes them. */
  removalPolicy: z.enum(['retain', 'destroy']),
  throttlingRateLimit: z.coerce.number().positive(),
  throttlingBurstLimit: z.coerce.number().int().positive(),
  logRetentionDays: z.coerce.number().int().positive(),
  /** Secrets Manager secret holding { accessToken, appSecret, verifyToken, phoneNumberId? }. */
  whatsappSecretName: z.string().min(1),
  /** WhatsApp Graph API base URL, with its version. */
  graphApiBaseUrl: z.url(),
  /** Subscribed by email to the alarm topic when given (the address confirms it once). */
  alarmEmail: z.email().optional(),
});

export type StackConfig = z.infer<typeof schema>;

export const contextKeys = Object.keys(schema.shape) as (keyof StackConfig)[];

export function readStackConfig(node: Node): StackConfig {
  const raw = Object.fromEntries(contextKeys.map((key) => [key, node.tryGetContext(key)]));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`Invalid CDK context: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
