import { handler as trackingDispatches } from '../../../lambdas/handlers/tracking-dispatches';
import { lambdaContext, routeEvent } from '../../../lib/testing';

const KEY = 'msk_test_key_00000001';

it('types the streamed route as Lambda response streaming calls it', () => {
  const event = routeEvent('trackingDispatches', { apiKey: KEY });
  // @ts-expect-error (event, context) leaves it no response stream to write to
  const misuse = () => trackingDispatches(event, lambdaContext('trackingDispatches'));
  expect(misuse).toBeInstanceOf(Function);
});
