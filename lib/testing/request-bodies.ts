import qs from 'qs';

export type Encoding = 'json' | 'form' | 'multipart';
export const encodings: Encoding[] = ['json', 'form', 'multipart'];

const DEFAULT_BOUNDARY = 'TestBoundary7MA4YWxkTrZu0gW';

/**
 * A request body in one of the three encodings the API takes, forms in the bracket notation of
 * docs/api.md#form-encodings (`content[variables][name]=Budi`, `trackingTags[]=promo`), with the
 * Content-Type header that names it.
 */
export function encodeBody(body: Record<string, unknown>, encoding: Encoding, boundary = DEFAULT_BOUNDARY): { body: string | Buffer; headers: Record<string, string> } {
  if (encoding === 'json') return { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
  const form = qs.stringify(body, { arrayFormat: 'brackets' });
  if (encoding === 'form') return { body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } };
  const parts = [...new URLSearchParams(form)].map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } };
}

/** The encoding a Content-Type header names, with a multipart body's boundary; JSON for any other. */
export function encodingOf(contentType: string | undefined): { encoding: Encoding; boundary?: string } {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return { encoding: 'form' };
  if (type === 'multipart/form-data') {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
    return { encoding: 'multipart', ...(boundary ? { boundary } : {}) };
  }
  return { encoding: 'json' };
}
