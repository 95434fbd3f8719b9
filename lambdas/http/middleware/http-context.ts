import type { Context } from 'aws-lambda';
import type { Principal } from '../../domain/api-keys/authenticate';

/** The Lambda context, plus the caller once the auth middleware has identified it. */
export interface HttpContext extends Context {
  principal?: Principal;
}
