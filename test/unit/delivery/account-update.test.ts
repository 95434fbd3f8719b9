import { readAccountUpdate } from '../../../lambdas/domain/providers/whatsapp-webhook';

/** `account_update` values as Meta's webhook reference describes them (decision 142). */
describe('WhatsApp’s account_update, read for the operators', () => {
  it('calls a restriction, a violation and a ban restricting, with what WhatsApp said of each', () => {
    expect(readAccountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '2026-01-08T00:00:00+0000' }, { restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }] })).toEqual({
      ok: true,
      value: {
        event: 'ACCOUNT_RESTRICTION',
        restricting: true,
        violationType: null,
        banState: null,
        banDate: null,
        restrictions: [
          // Meta's date-time with its offset as Graph API writes it, read as the instant the runbook queries.
          { type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '2026-01-08T00:00:00.000Z' },
          { type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: null },
        ],
      },
    });
    expect(readAccountUpdate({ event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 'SCAM' } })).toMatchObject({ ok: true, value: { restricting: true, violationType: 'SCAM' } });
    expect(readAccountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: '2026-01-01' } })).toMatchObject({ ok: true, value: { restricting: true, banState: 'DISABLE', banDate: '2026-01-01' } });
  });

  it('reads a restriction’s end as Meta’s reference gives it (Unix seconds, an integer) as an instant, and a detail of another shape as unknown, never dropping the event', () => {
    expect(readAccountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: 1641330498 }, { restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '1641330498' }] })).toMatchObject({
      ok: true,
      value: {
        restricting: true,
        restrictions: [
          { type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: '2022-01-04T21:08:18.000Z' },
          { type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION', expiration: '2022-01-04T21:08:18.000Z' },
        ],
      },
    });
    expect(readAccountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ expiration: { at: 1 } }] })).toMatchObject({ ok: true, value: { restricting: true, restrictions: [{ type: 'unknown', expiration: null }] } });
    expect(readAccountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: 'soon', ban_info: 3 })).toMatchObject({ ok: true, value: { restricting: true, restrictions: [], banState: null } });
    expect(readAccountUpdate({ event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 7 } })).toMatchObject({ ok: true, value: { restricting: true, violationType: null } });
  });

  it('calls a lifted ban (DISABLED_UPDATE, REINSTATE) an update to log, not a restriction (decision 158)', () => {
    expect(readAccountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'REINSTATE', waba_ban_date: 'October 9, 2023' } })).toMatchObject({ ok: true, value: { restricting: false, banState: 'REINSTATE' } });
    expect(readAccountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'SCHEDULE_FOR_DISABLE' } })).toMatchObject({ ok: true, value: { restricting: true } });
  });

  it('calls any other event an update to log, and a value without an event malformed', () => {
    expect(readAccountUpdate({ event: 'BUSINESS_PRIMARY_LOCATION_COUNTRY_UPDATE', country: 'ID' })).toMatchObject({ ok: true, value: { event: 'BUSINESS_PRIMARY_LOCATION_COUNTRY_UPDATE', restricting: false } });
    expect(readAccountUpdate({ restriction_info: [] })).toMatchObject({ ok: false, reason: 'malformed_change' });
  });
});
