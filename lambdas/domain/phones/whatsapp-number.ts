/**
 * The E.164 form of a WhatsApp user's number as webhooks give it (`from`, `wa_id`:
 * `6281234567890`, the international number's digits without "+"). WhatsApp gives the number it
 * has already normalised, so the phone parser has nothing to add but Mexico's old mobile 1 and
 * Argentina's mobile 9 (below; checked against it in test/unit/domain/phone-metadata.test.ts), and
 * the functions that only read webhooks do not carry its metadata (decision 88).
 */
export function fromWhatsAppNumber(waNumber: string): string {
  return withoutArgentineMobileNine(withoutMexicanMobileOne(waNumber.startsWith('+') ? waNumber : `+${waNumber}`));
}

/**
 * Mexico dropped the mobile "1" after its country code in 2019 (+52 1 55… is now +52 55…), and the
 * phone parser refuses the old form, but WhatsApp ids still carry it (`5215512345678`). One number,
 * one form: without the 1, so a customer's conversation is found, and answered, at the number the
 * API shows for it, however it is written.
 */
export const withoutMexicanMobileOne = (e164: string): string => e164.replace(/^\+521(\d{10})$/, '+52$1');

/**
 * An Argentine mobile has two written forms: +54 9 and its ten digits (how WhatsApp ids carry it,
 * `5491123456789`, and how the phone parser writes a mobile) and +54 and the same ten (how
 * integrations write it, and how WhatsApp takes sends: its allowed list refuses the 9). One number,
 * one form, as for Mexico: without the 9 (decision 208). A landline is +54 and ten digits already,
 * so it is left as it is.
 */
export const withoutArgentineMobileNine = (e164: string): string => e164.replace(/^\+549(\d{10})$/, '+54$1');
