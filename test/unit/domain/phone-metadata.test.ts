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

  it('reads a WhatsApp id (international digits, no "+") as the phone parser does, without it', () => {
    // As webhooks give them: Indonesia, the US, the UK, Mexico (with and without the old mobile 1),
    // Brazil (with and without the ninth digit), India, Singapore.
    const waIds = ['6281234567890', '16315551002', '447946095800', '5215512345678', '525512345678', '551187654321', '5511987654321', '919876543210', '6561234567'];
    expect(waIds.map(fromWhatsAppNumber)).toEqual(waIds.map((waId) => toE164(`+${waId}`) ?? `+${waId}`));
    expect(fromWhatsAppNumber('6281234567890')).toBe('+6281234567890');
    expect(fromWhatsAppNumber('+6281234567890')).toBe('+6281234567890');
  });
});
