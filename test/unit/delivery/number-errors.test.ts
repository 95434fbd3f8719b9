import { readMessagesChange, readNumberError } from '../../../lambdas/domain/providers/whatsapp-webhook';

/** The `errors` a `messages` change may carry, as Meta's errors messages webhook reference shows them (decision 149). */
describe('WhatsApp’s errors on a number, read for the operators', () => {
  const rateLimit = {
    code: 130429,
    title: 'Rate limit hit',
    message: 'Rate limit hit',
    error_data: { details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time' },
    href: '/documentation/business-messaging/whatsapp/support/error-codes',
  };

  it('reads a change that carries only errors, and each error’s code, title and details', () => {
    expect(readMessagesChange({ messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' }, errors: [rateLimit] })).toEqual({
      ok: true,
      value: { phoneNumberId: '106540352242922', statuses: [], messages: [], contacts: [], errors: [rateLimit] },
    });
    expect(readNumberError(rateLimit)).toEqual({ code: '130429', title: 'Rate limit hit', details: rateLimit.error_data.details });
  });

  it('tells an error of another shape all the same: its message for a title, and what it holds when nothing can be read', () => {
    expect(readNumberError({ code: '131000', message: 'Something went wrong' })).toEqual({ code: '131000', title: 'Something went wrong', details: null });
    expect(readNumberError({})).toEqual({ code: 'none', title: null, details: null });
    expect(readNumberError({ code: { nested: true } })).toEqual({ code: 'unreadable', title: null, details: '{"code":{"nested":true}}' });
  });
});
