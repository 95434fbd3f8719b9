import type { Readable } from 'node:stream';

/**
 * What a plain handler returns; the middleware stack serialises it. `B` is the body's type: a
 * route that documents its response (`schemas.response`) must return a body of that type, so the
 * OpenAPI document and the code cannot part silently. A streaming route returns a Readable of it.
 */
export interface HttpResult<B = unknown> {
  statusCode: number;
  body: B | Readable;
  headers?: Record<string, string>;
  /** Send `body` (a string) as is, with this Content-Type, instead of as JSON. */
  contentType?: string;
}

export const ok = <B>(body: B | Readable, headers?: Record<string, string>): HttpResult<B> => ({ statusCode: 200, body, ...(headers ? { headers } : {}) });
export const created = <B>(body: B, headers?: Record<string, string>): HttpResult<B> => ({ statusCode: 201, body, ...(headers ? { headers } : {}) });
/** 204: the stack sends no body and no Content-Type. */
export const noContent = (): HttpResult<undefined> => ({ statusCode: 204, body: undefined });
export const accepted = <B>(body: B, headers?: Record<string, string>): HttpResult<B> => ({ statusCode: 202, body, ...(headers ? { headers } : {}) });
/** The header of an answer replayed for a repeat with its `Idempotency-Key` (docs/api.md#idempotency). */
export const replayedHeader = (replayed: boolean | undefined): Record<string, string> | undefined => (replayed ? { 'Idempotent-Replayed': 'true' } : undefined);

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** A plain-text answer (the WhatsApp verification handshake echoes its challenge). */
export const text = (body: string): HttpResult<string> => ({ statusCode: 200, body, contentType: TEXT_CONTENT_TYPE });

/**
 * Lambda refuses a buffered (not streamed) response whose invoke payload, the proxy result as JSON
 * with its escaped body, passes this many bytes: `Function.ResponseSizeTooLarge`, which API Gateway
 * answers 502 (decision 170).
 */
export const BUFFERED_RESPONSE_LIMIT_BYTES = 6_291_556;

/**
 * The bytes `value` takes in a buffered response's invoke payload: its JSON, escaped again as the
 * body string, so a control character counts seven bytes (`\\u0001`) and a quote four.
 */
export const bufferedBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;
