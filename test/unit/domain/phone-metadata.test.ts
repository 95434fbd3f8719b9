import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { toE164 } from '../../../lambdas/domain/phones/phone-number';
import { fromWhatsAppNumber } from '../../../lambdas/domain/phones/whatsapp-number';
import { phoneMetadata } from '../../../lib/phones/phone-metadata';
import { PROJECT_ROOT } from '../../../lib/project-paths';

describe('the phone metadata the functions bundle', () => {
  it('is the installed libphonenumber-js metadata without formats (after an upgrade: npx tsx bin/phone-metadata.ts)', () => {
    const committed: unknown = JSON.parse(readFileSync(join(PROJECT_ROOT, 'lambdas', 'domain', 'phones', 'metadata.json'), 'utf8'));
    expect(committed).toEqual(phoneMetadata());
  });

  it('reads every number as the library with its full metadata does', () => {
    const numbers = ['081234567890', '0812-3456-7890', '62812 3456 7890', '+62 812-3456-7890', '6281234567890', '+1 202 555 0100', '+44 20 7946 0958', '+65 6123 4567', '+61 2 9374 4000', '+91 98765 43210', '021 555 1234', '+62 21 555 1234', '12345', 'not a phone', '+999 123', '0800 1234 5678', '+6281'];
    const library = (input: string) => {
      const trimmed = input.trim();
      const candidate = /^62\d{8,}$/.test(trimmed.replace(/[\s().-]/g, '')) ? `+${trimmed}` : trimmed;
      const parsed = parsePhoneNumberFromString(candidate, 'ID');
      return parsed?.isValid() ? parsed.number : undefined;
    };
    expect(numbers.map(toE164)).toEqual(numbers.map(library));
    expect(toE164('0812-3456-7890')).toBe('+6281234567890');
    expect(toE164('+1 202 555 0100')).toBe('+12025550100');
  });

  // A review: the bundled metadata checks lengths only, so "0062 812…" (the international prefix 00,
  // as most of the world dials) became the 17-digit "+62006281234567890", and "000812345678" the
  // Indonesian "+6200812345678", which no Indonesian number is; each was accepted, then failed at WhatsApp.
  it('refuses an Indonesian number that starts with 0 or has more than 15 digits, and reads "+62 0812…" as the number it is', () => {
    expect(['0062 812 3456 7890', '0044 20 7946 0958', '000812345678', '0 0812 3456 7890', '+62 812 3456 7890 1234'].map(toE164)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(['+62 0812 3456 7890', '081234567890', '+44 20 7946 0958'].map(toE164)).toEqual(['+6281234567890', '+6281234567890', '+442079460958']);
  });

  it('reads a WhatsApp id (international digits, no "+") as the phone parser does, without it', () => {
    // As webhooks give them: Indonesia, the US, the UK, Mexico (with and without the old mobile 1),
    // Brazil (with and without the ninth digit), Argentina (a mobile with its 9, a landline), India, Singapore.
    const waIds = ['6281234567890', '16315551002', '447946095800', '5215512345678', '525512345678', '551187654321', '5511987654321', '5491123456789', '541143210000', '919876543210', '6561234567'];
    expect(waIds.map(fromWhatsAppNumber)).toEqual(waIds.map((waId) => toE164(`+${waId}`) ?? `+${waId}`));
    expect(fromWhatsAppNumber('6281234567890')).toBe('+6281234567890');
    // Mexico's old mobile 1, which WhatsApp ids keep and the parser refuses: one number, written without it.
    expect([fromWhatsAppNumber('5215512345678'), toE164('+52 1 55 1234 5678'), toE164('+52 55 1234 5678')]).toEqual(['+525512345678', '+525512345678', '+525512345678']);
    // Argentina's mobile 9, which WhatsApp ids carry and integrations leave out (decision 208): one
    // number, written without it, however it is written (the local "15" the parser turns into the 9
    // too); a landline, +54 and ten digits, stays as it is.
    const argentineMobile = [fromWhatsAppNumber('5491123456789'), toE164('+54 9 11 2345-6789'), toE164('+54 11 2345-6789'), toE164('+54 11 15 2345-6789'), toE164('+5491123456789')];
    expect(argentineMobile).toEqual(Array(argentineMobile.length).fill('+541123456789'));
    expect([fromWhatsAppNumber('541143210000'), toE164('+54 11 4321-0000'), toE164('+54 351 423-4567')]).toEqual(['+541143210000', '+541143210000', '+543514234567']);
    expect(fromWhatsAppNumber('+6281234567890')).toBe('+6281234567890');
  });
});
