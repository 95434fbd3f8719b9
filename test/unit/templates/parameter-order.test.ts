import { bodyParameters, templateParameters } from '../../../lambdas/domain/templates/render';

/**
 * WhatsApp fills a positional template's {{n}} with its n-th parameter, wherever {{n}} stands in the
 * text, and a placeholder the text uses twice takes one parameter; a named template's parameters go
 * with their names. What the send hands the provider, for a body and for a carousel card's body.
 */
const values = new Map(Object.entries({ '1': 'Sari', '2': '12A', '3': 'B7', card_0_1: 'aloe', card_0_2: '30%', first_name: 'Sari', seat: '12A' }));

describe('the order of a text’s parameters', () => {
  it('takes a positional body’s by number, each once', () => {
    expect(bodyParameters('Gate {{3}}, seat {{2}}, {{1}}: gate {{ 3 }} closes soon.', values)).toEqual(['Sari', '12A', 'B7']);
  });

  it('takes a named body’s as they first appear, each once, with the same names', () => {
    const body = 'Hi {{seat}} for {{first_name}}; your seat {{seat}}.';
    expect(bodyParameters(body, values)).toEqual(['12A', 'Sari']);
    const version = { body, components: { parameterFormat: 'NAMED' as const, buttons: [] } };
    expect(templateParameters(version, values).bodyParameterNames).toEqual(['seat', 'first_name']);
  });

  it('takes a carousel card’s positional body by number, each once', () => {
    const version = { body: '{{1}}', components: { parameterFormat: 'POSITIONAL' as const, buttons: [], cards: [{ body: ['card_0_2', 'card_0_1', 'card_0_2'], buttons: [] }] } };
    expect(templateParameters(version, values).cards).toEqual([{ bodyParameters: ['aloe', '30%'] }]);
  });
});
