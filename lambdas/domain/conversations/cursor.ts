import { createHmac, timingSafeEqual } from 'node:crypto';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { config } from '../../shared/config';
import * as z from '../../shared/zod';
import { ValidationError } from '../../shared/errors';

/**
 * Opaque pagination cursors: DynamoDB's LastEvaluatedKey plus what it is bound to (the workspace
 * and the query that produced it), HMAC-signed. A cursor that was modified, comes from another
 * workspace, or is reused on another conversation or filter is 422 — never data.
 */
async function signingKey(): Promise<string> {
  if (config.CURSOR_SECRET_NAME) {
    const secret = await getSecret(config.CURSOR_SECRET_NAME, { maxAge: 300 });
    if (typeof secret !== 'string' || secret.length < 16) throw new Error(`Secret ${config.CURSOR_SECRET_NAME} is not a signing key`);
    return secret;
  }
  if (!config.CURSOR_SECRET) throw new Error('CURSOR_SECRET or CURSOR_SECRET_NAME must be set');
  return config.CURSOR_SECRET;
}

/** What a cursor carries: a table key (a few string or number attributes) and its scope. */
const cursorContent = z.object({ k: z.record(z.string().check(z.maxLength(64)), z.union([z.string().check(z.maxLength(2048)), z.number()])).check(z.refine((key) => Object.keys(key).length <= 6)), s: z.string() });

const parseContent = (payload: string) => {
  try {
    return cursorContent.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
};

const sign = (payload: string, key: string) => createHmac('sha256', key).update(payload).digest('base64url');

/** `scope` names what the cursor may be used for: workspace, resource and filter. */
export async function encodeCursor(lastKey: Record<string, unknown> | undefined, scope: string): Promise<string | null> {
  if (!lastKey) return null;
  const payload = Buffer.from(JSON.stringify({ k: lastKey, s: scope })).toString('base64url');
  return `${payload}.${sign(payload, await signingKey())}`;
}

export async function decodeCursor(cursor: string | undefined, scope: string): Promise<Record<string, unknown> | undefined> {
  if (cursor === undefined) return undefined;
  const invalid = () => new ValidationError('query.cursor: not a cursor this request can use');
  const [payload, signature, ...rest] = cursor.split('.');
  if (!payload || !signature || rest.length) throw invalid();
  const expected = Buffer.from(sign(payload, await signingKey()));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  // Signed by us, yet not what we sign (a key that leaked, or one from an older release): still only a 422.
  const content = parseContent(payload);
  if (!content?.success || content.data.s !== scope) throw invalid();
  return content.data.k;
}
