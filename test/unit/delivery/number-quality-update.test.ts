import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { applyProviderReports } from '../../../lambdas/domain/delivery/provider-reports';
import { readNumberQualityUpdate, webhookEnvelopeSchema } from '../../../lambdas/domain/providers/whatsapp-webhook';
import { keys } from '../../../lambdas/shared/table';
import { resetContainerCaches } from '../../../lib/testing';
import { captureLogLines } from '../../support/log-lines';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetContainerCaches();
});

/** `phone_number_quality_update` values as Meta's webhook reference describes them (decision 150). */
describe('WhatsApp’s phone_number_quality_update, read for the operators', () => {
  it('reads the number, the event and the portfolio’s limit (max_daily_conversations_per_business, else the retiring current_limit), and what an operator may do', () => {
    expect(readNumberQualityUpdate({ display_phone_number: '15550783881', event: 'THROUGHPUT_UPGRADE', current_limit: 'TIER_UNLIMITED', max_daily_conversations_per_business: 'TIER_2K' })).toEqual({
      ok: true,
      value: { displayPhoneNumber: '15550783881', event: 'THROUGHPUT_UPGRADE', oldLimit: null, messagingLimit: 'TIER_2K', action: 'throughput_raised' },
    });
    expect(readNumberQualityUpdate({ display_phone_number: '15550783881', event: 'DOWNGRADE', old_limit: 'TIER_10K', current_limit: 'TIER_2K' })).toMatchObject({
      ok: true,
      value: { oldLimit: 'TIER_10K', messagingLimit: 'TIER_2K', action: 'limit_lowered' },
    });
    expect(readNumberQualityUpdate({ display_phone_number: '15550783881', event: 'ONBOARDING' })).toMatchObject({ ok: true, value: { messagingLimit: null, action: null } });
    expect(readNumberQualityUpdate({ event: 'ONBOARDING' })).toMatchObject({ ok: false, reason: 'malformed_change' });
  });

  it('says to raise the number’s pace when WhatsApp raised its throughput, naming the workspace bound to the account, and changes nothing', async () => {
    ddb.on(GetCommand, { Key: keys.whatsappBusinessAccount('102290129340398') }).resolves({ Item: { ...keys.whatsappBusinessAccount('102290129340398'), entity: 'whatsappBusinessAccount', workspaceId: 'ws-acme' } });
    const logs = captureLogLines();
    try {
      const envelope = webhookEnvelopeSchema.parse({
        object: 'whatsapp_business_account',
        entry: [{ id: '102290129340398', time: 1767225600, changes: [{ field: 'phone_number_quality_update', value: { display_phone_number: '15550783881', event: 'THROUGHPUT_UPGRADE', current_limit: 'TIER_UNLIMITED', max_daily_conversations_per_business: 'TIER_UNLIMITED' } }] }],
      });
      expect(await applyProviderReports(envelope)).toMatchObject({ skipped: 0 });
    } finally {
      logs.restore();
    }
    expect(logs.lines).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'WhatsApp raised the number’s throughput; raise its whatsappMessagesPerSecond to send faster',
        businessAccountId: '102290129340398',
        workspaceId: 'ws-acme',
        displayPhoneNumber: '15550783881',
        event: 'THROUGHPUT_UPGRADE',
        messagingLimit: 'TIER_UNLIMITED',
      }),
    ]);
    expect(ddb.calls().map((call) => call.args[0].constructor.name)).toEqual(['GetCommand']);
  });
});
