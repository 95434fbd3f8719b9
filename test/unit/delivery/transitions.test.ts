import { statusChangeOf } from '../../../lambdas/domain/delivery/provider-reports';
import { canMove, canTransition, mayStillMove } from '../../../lambdas/domain/delivery/transitions';
import { dispatchStatuses, type DispatchStatus } from '../../../lambdas/domain/messages/dispatch';
import { classifyWhatsAppError } from '../../../lambdas/domain/providers/whatsapp-errors';
import { isValidWebhookSignature, readStatus, signWebhookBody } from '../../../lambdas/domain/providers/whatsapp-webhook';

describe('dispatch status transitions (docs/api.md#dispatch-statuses)', () => {
  const allowed = new Set([
    'queued→processing',
    'processing→sent',
    'sent→delivered',
    'queued→failed',
    'processing→failed',
    'sent→failed',
    'queued→canceled',
    'processing→unknown',
    'unknown→sent',
    'unknown→delivered',
    'unknown→failed',
    // A delivery report may overtake our own record of the send.
    'processing→delivered',
  ]);

  it.each(dispatchStatuses.flatMap((from) => dispatchStatuses.map((to) => [from, to] as const)))('%s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(allowed.has(`${from}→${to}`));
  });

  it('never leaves a terminal status, so duplicate and late reports are no-ops', () => {
    for (const terminal of ['delivered', 'failed', 'canceled'] as const) {
      expect(dispatchStatuses.filter((to) => canTransition(terminal, to))).toEqual([]);
    }
  });

  it('moves by a claim’s verdict only from what the claim left: a report that moved the dispatch on wins (decision 237)', () => {
    const fromByVerdict = (to: DispatchStatus) => dispatchStatuses.filter((from) => canMove(from, { to, ofClaim: 2 }));
    expect(fromByVerdict('failed')).toEqual(['processing', 'unknown']);
    expect(fromByVerdict('sent')).toEqual(['processing', 'unknown']);
    expect(fromByVerdict('unknown')).toEqual(['processing']);
    // A report names no claim: the transition table alone.
    expect(dispatchStatuses.filter((from) => canMove(from, { to: 'failed' }))).toEqual(dispatchStatuses.filter((from) => canTransition(from, 'failed')));
  });

  it('knows, from a status last seen, which moves no later read could allow', () => {
    const hopeless = (from: DispatchStatus) => dispatchStatuses.filter((to) => !mayStillMove(from, to));
    // A terminal status refuses everything; WhatsApp's `sent` on a dispatch our own answer moved to sent is refused for good.
    expect(hopeless('delivered')).toEqual([...dispatchStatuses]);
    expect(hopeless('failed')).toEqual([...dispatchStatuses]);
    expect(hopeless('canceled')).toEqual([...dispatchStatuses]);
    expect(hopeless('sent')).toEqual(['queued', 'processing', 'sent', 'canceled', 'unknown']);
    // A stale `queued` may be `processing` by now, from which sent and delivered are allowed.
    expect(hopeless('queued')).toEqual(['queued']);
    expect(hopeless('processing')).toEqual(['queued', 'processing', 'canceled']);
    expect(hopeless('unknown')).toEqual(['queued', 'processing', 'canceled', 'unknown']);
    for (const from of dispatchStatuses) for (const to of dispatchStatuses) if (canTransition(from, to)) expect(mayStillMove(from, to)).toBe(true);
  });
});

describe('WhatsApp statuses as dispatch moves', () => {
  const status = (value: 'sent' | 'delivered' | 'read' | 'failed', errors?: { code: number }[]) => {
    const read = readStatus({
      id: 'wamid.1',
      status: value,
      timestamp: '1767225600',
      biz_opaque_callback_data: '3f2b0c1e-5d6a-4b7c-8d9e-0f1a2b3c4d5e',
      ...(errors ? { errors } : {}),
    });
    if (!read.ok) throw new Error(read.detail);
    return read.value;
  };

  it('maps sent, delivered, read and failed to moves and delivery events', () => {
    expect(statusChangeOf(status('sent'))).toEqual({ to: 'sent', occurredAt: '2026-01-01T00:00:00.000Z', providerMessageId: 'wamid.1' });
    expect(statusChangeOf(status('delivered'))).toMatchObject({ to: 'delivered', event: 'DELIVERED' });
    expect(statusChangeOf(status('read'))).toMatchObject({ to: 'delivered', event: 'DELIVERED' });
    expect(statusChangeOf(status('failed', [{ code: 131026 }]))).toMatchObject({ to: 'failed', event: 'REJECTED', failureCode: '131026' });
  });
});

describe('WhatsApp error classification', () => {
  it.each([
    [400, 131026, 'permanent'],
    [400, 132001, 'permanent'],
    [400, 100, 'permanent'],
    [429, 130429, 'transient'],
    // A 429 is a limit whatever its code: one not on the list, even one permanent at another status, is retried.
    [429, 80008, 'transient'],
    [429, 131026, 'transient'],
    [400, 131056, 'transient'],
    [400, 131048, 'transient'],
    [503, undefined, 'transient'],
    [500, 131000, 'transient'],
    // An expired or revoked token, or a permission taken away: issue 14 holds delivery instead of failing it.
    [401, 190, 'credentials'],
    [401, 0, 'credentials'],
    [403, 10, 'credentials'],
    [403, 200, 'credentials'],
    [403, 299, 'credentials'],
    [403, 131005, 'credentials'],
    [401, undefined, 'credentials'],
    [400, 300, 'permanent'],
  ] as const)('HTTP %s, code %s is %s', (status, code, kind) => {
    const error = classifyWhatsAppError(status, code === undefined ? undefined : { code, message: 'x' });
    expect(error.kind).toBe(kind);
    expect(error.code).toBe(String(code ?? `http_${status}`));
  });

  // Meta's error codes: 131048, "Spam rate limit hit", restricts the number for its quality
  // ("check your quality status"): retried at 2, 4, 8 and 16 s, each queued message called a
  // restricted number five times in half a minute. The refusals that last minutes back off for minutes.
  it.each([
    [400, 131048],
    [429, 131048],
    [400, 131056],
    [400, 131057],
    [400, 80007],
  ])('HTTP %s, code %s backs off for minutes', (status, code) => {
    expect(classifyWhatsAppError(status, { code, message: 'x' }).backOff).toBe('long');
  });
  it.each([[429, 130429], [500, 131000]])('HTTP %s, code %s backs off for seconds', (status, code) => {
    expect(classifyWhatsAppError(status, { code, message: 'x' }).backOff).toBe('short');
  });
  // Meta's "service down" codes ("check the WhatsApp Business Platform Status page before trying
  // again"), and a 5xx or 429 with no Graph error: retried at 2 to 16 s, the fifth answer failed
  // every message in flight half a minute into an outage that lasts minutes (decision 228).
  it.each([
    [503, 2],
    [503, 131016],
    [503, 133004],
    [500, undefined],
    [503, undefined],
    [429, undefined],
  ])('HTTP %s, code %s is WhatsApp down, retried over half an hour', (status, code) => {
    const error = classifyWhatsAppError(status, code === undefined ? undefined : { code, message: 'x' });
    expect([error.kind, error.backOff]).toEqual(['transient', 'outage']);
  });
});

describe('webhook signatures', () => {
  const body = '{"object":"whatsapp_business_account","entry":[]}';

  it('accepts the HMAC-SHA256 of the exact body with the app secret', () => {
    expect(isValidWebhookSignature(body, signWebhookBody(body, 'secret'), 'secret')).toBe(true);
  });

  it('rejects a missing, truncated or foreign signature, and a re-serialised body', () => {
    const signature = signWebhookBody(body, 'secret');
    expect(isValidWebhookSignature(body, undefined, 'secret')).toBe(false);
    expect(isValidWebhookSignature(body, signature.slice(0, -1), 'secret')).toBe(false);
    expect(isValidWebhookSignature(body, signWebhookBody(body, 'other'), 'secret')).toBe(false);
    expect(isValidWebhookSignature(JSON.stringify(JSON.parse(body), null, 1), signature, 'secret')).toBe(false);
  });
});
