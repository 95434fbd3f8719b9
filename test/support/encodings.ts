import qs from 'qs';

export type Encoding = 'json' | 'form' | 'multipart';
export const encodings: Encoding[] = ['json', 'form', 'multipart'];

/**
 * A request body in one of the three encodings send accepts, forms in the bracket notation of
 * docs/api.md#form-encodings (`content[variables][name]=Budi`, `trackingTags[]=promo`).
 */
export function encodeBody(body: Record<string, unknown>, encoding: Encoding): { body: string | Buffer; headers: Record<string, string> } {
  if (encoding === 'json') return { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
  const form = qs.stringify(body, { arrayFormat: 'brackets' });
  if (encoding === 'form') return { body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } };
  const boundary = 'TestBoundary7MA4YWxkTrZu0gW';
  const parts = [...new URLSearchParams(form)].map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}
