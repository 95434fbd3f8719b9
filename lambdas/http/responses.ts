/** What a plain handler returns; the middleware stack serialises it. */
export interface HttpResult {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Send `body` (a string) as is, with this Content-Type, instead of as JSON. */
  contentType?: string;
}

export const ok = (body: unknown, headers?: Record<string, string>): HttpResult => ({ statusCode: 200, body, ...(headers ? { headers } : {}) });
export const accepted = (body: unknown, headers?: Record<string, string>): HttpResult => ({ statusCode: 202, body, ...(headers ? { headers } : {}) });

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A plain-text answer (the WhatsApp verification handshake echoes its challenge). */
export const text = (body: string): HttpResult => ({ statusCode: 200, body, contentType: 'text/plain; charset=utf-8' });
