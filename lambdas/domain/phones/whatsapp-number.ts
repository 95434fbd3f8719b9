/**
 * The E.164 form of a WhatsApp user's number as webhooks give it (`from`, `wa_id`:
 * `6281234567890`, the international number's digits without "+"). WhatsApp gives the number it
 * has already normalised, so the phone parser has nothing to add (checked against it in
 * test/unit/domain/phone-metadata.test.ts), and the functions that only read webhooks do not
 * carry its metadata (decision 88).
 */
export function fromWhatsAppNumber(waNumber: string): string {
  return waNumber.startsWith('+') ? waNumber : `+${waNumber}`;
}
