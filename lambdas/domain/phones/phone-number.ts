import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** Numbers without a country code are read as Indonesian (`0812…` → `+62812…`). */
const DEFAULT_COUNTRY = 'ID';

/**
 * The E.164 form of a phone number (`+6281234567890`), or undefined when it is not a valid
 * number. `0812…`, `62812…`, `+62 812-…` all give the same result.
 */
export function toE164(input: string): string | undefined {
  const trimmed = input.trim();
  // A bare international number without "+" (628…) would otherwise be read as a national one.
  const candidate = /^62\d{8,}$/.test(trimmed.replace(/[\s().-]/g, '')) ? `+${trimmed}` : trimmed;
  const parsed = parsePhoneNumberFromString(candidate, DEFAULT_COUNTRY);
  return parsed?.isValid() ? parsed.number : undefined;
}

/**
 * The E.164 form of a WhatsApp user's number as webhooks give it (`6281234567890`, digits without
 * "+"). WhatsApp has verified the number, so one our parser does not know is kept as given.
 */
export function fromWhatsAppNumber(waNumber: string): string {
  const plus = waNumber.startsWith('+') ? waNumber : `+${waNumber}`;
  return toE164(plus) ?? plus;
}
