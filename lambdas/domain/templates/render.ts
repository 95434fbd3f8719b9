import type { TemplateVersion } from './template';
import type { HeaderParameter, TemplateParameters } from './template-parameters';

/** `{{name}}` placeholders; names are what variableDefinitions declare. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** A carousel card's variables are named for the card: `card_0_1` is the first card's {{1}}. */
export const cardVariablePrefix = (index: number): string => `card_${index}_`;

export interface VariableCheck {
  missing: string[];
  unknown: string[];
  /** `name: what it must be`, for each given value WhatsApp would refuse for its variable's type. */
  malformed: string[];
}

/** An http(s) link, read with one parse: it runs on the send's path. */
const isWebLink = (value: string) => /^https?:$/.test(URL.parse(value)?.protocol ?? '');

/**
 * WhatsApp refuses a text parameter with a new line or a tab, or more than four spaces in a row
 * (error 132018, "Param text cannot have new-line/tab characters or more than 4 consecutive
 * spaces"), and one with nothing in it.
 */
const isOneLine = (value: string) => value !== '' && !/[\n\r\t]| {5}/.test(value);
const TEXT_PARAMETER = { fits: isOneLine, expected: 'text on one line, not empty, with no tab and at most four spaces in a row' };
const textOfAtMost = (limit: number) => ({
  fits: (value: string) => isOneLine(value) && [...value].length <= limit,
  expected: `text on one line of at most ${limit} characters, with no tab and at most four spaces in a row`,
});
/**
 * Meta's parameter object (Cloud API messages reference), a text parameter: "For the header
 * component type: 60 characters. For the body component type: 1024 characters if other component
 * types are included, 32768 characters if body is the only component type included" (decision 233).
 */
const HEADER_TEXT_PARAMETER = textOfAtMost(60);
const BODY_WITH_OTHERS_TEXT_PARAMETER = textOfAtMost(1024);

/**
 * The shape WhatsApp takes for the variable types that have one: a header's media is fetched from
 * its link, a location's coordinates are numbers, an offer's end is Unix time in milliseconds, a URL
 * button's suffix is a text parameter (`{ type: 'text', text }`), held as every other (decision 233).
 * A value of another shape fails the message at WhatsApp, after the send was accepted (decision 143).
 */
const VALUE_SHAPES: Readonly<Record<string, { fits: (value: string) => boolean; expected: string }>> = {
  url_suffix: TEXT_PARAMETER,
  image: { fits: isWebLink, expected: 'an http or https link to the image' },
  video: { fits: isWebLink, expected: 'an http or https link to the video' },
  document: { fits: isWebLink, expected: 'an http or https link to the document' },
  number: { fits: (value) => /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value), expected: 'a decimal number' },
  timestamp_ms: { fits: (value) => /^[1-9]\d{0,14}$/.test(value), expected: 'Unix time in milliseconds (digits)' },
  // Meta's coupon code templates: "Only accepting alphanumeric characters. Maximum 20 characters."
  coupon_code: { fits: (value) => /^[A-Za-z0-9]{1,20}$/.test(value), expected: 'a coupon code of 1 to 20 letters and digits' },
  // Meta's authentication templates: the one-time password, "Maximum 15 characters", and error 100
  // for "supplied variable values [that] contain links or emojis".
  otp_code: {
    fits: (value) => isOneLine(value) && [...value].length <= 15 && !/:\/\/|www\./i.test(value) && !/\p{Extended_Pictographic}/u.test(value),
    expected: 'a one-time password of 1 to 15 characters on one line, without links or emoji',
  },
};

/**
 * The variables whose values WhatsApp takes as text parameters (the body's, a text header's, each
 * card's body), with the rule each is held to. The body's is 1024 characters when this send carries
 * another component (a header, an offer's expiry, a button, the carousel), as a card's body always
 * does (its header); alone, the send schema's 4000 is within Meta's 32768. What the send carries is
 * what `templateParameters` builds from the values given: an optional button left out sends none.
 */
function textVariables(version: Pick<TemplateVersion, 'body' | 'components'>, given: ReadonlyMap<string, string>): Map<string, typeof TEXT_PARAMETER> {
  const { header, cards } = version.components ?? {};
  const carried = templateParameters(version, given);
  const bodyRule = carried.header || carried.offerExpirationTimeMs !== undefined || carried.buttons || carried.cards ? BODY_WITH_OTHERS_TEXT_PARAMETER : TEXT_PARAMETER;
  const rules = new Map([...version.body.matchAll(PLACEHOLDER)].map((match) => [match[1]!, bodyRule]));
  const textHeaderVariables = (binding: typeof header) => (binding?.format === 'TEXT' ? binding.variables : []);
  for (const name of (cards ?? []).flatMap((card) => card.body)) rules.set(name, BODY_WITH_OTHERS_TEXT_PARAMETER);
  for (const name of [...textHeaderVariables(header), ...(cards ?? []).flatMap((card) => textHeaderVariables(card.header))]) rules.set(name, HEADER_TEXT_PARAMETER);
  return rules;
}

/** Optional variables left out that would go to WhatsApp as empty text parameters, which it refuses: one entry naming them all. */
function leftOutText(definitions: TemplateVersion['variableDefinitions'], asText: ReadonlyMap<string, unknown>, given: ReadonlyMap<string, string>): string[] {
  const names = definitions.filter(({ name, required }) => !required && asText.has(name) && !given.has(name)).map(({ name }) => name);
  return names.length ? [`${names.join(', ')}: must be given, as WhatsApp takes no empty text parameter`] : [];
}

/**
 * Which required variables are missing, which given names the version does not define, and which
 * values WhatsApp would refuse: a value that does not fit its type, or a text parameter it does not
 * take. Only a synced version's types go into WhatsApp's components; an imported version's are
 * descriptions, and its values all go into the body as text.
 */
export function checkVariables(version: Pick<TemplateVersion, 'variableDefinitions' | 'components' | 'body'>, given: ReadonlyMap<string, string>): VariableCheck {
  const defined = new Set(version.variableDefinitions.map((definition) => definition.name));
  const asText = textVariables(version, given);
  return {
    missing: version.variableDefinitions.filter((definition) => definition.required && !given.has(definition.name)).map((definition) => definition.name),
    unknown: [...given.keys()].filter((name) => !defined.has(name)),
    malformed: [
      ...version.variableDefinitions.flatMap(({ name, type }) => {
        const value = given.get(name);
        const shape = (version.components && VALUE_SHAPES[type]) || asText.get(name);
        return value !== undefined && shape && !shape.fits(value) ? [`${name}: must be ${shape.expected}`] : [];
      }),
      ...leftOutText(version.variableDefinitions, asText, given),
    ],
  };
}

/** The body with each `{{name}}` replaced by its value; optional ones left out render empty. */
export function renderBody(body: string, values: ReadonlyMap<string, string>): string {
  return body.replace(PLACEHOLDER, (_, name: string) => values.get(name) ?? '');
}

/**
 * The order WhatsApp takes a text's parameters in, each once: a positional text's ({{1}}, {{2}}, …)
 * by number, since WhatsApp fills {{n}} with the n-th parameter wherever {{n}} stands in the text; a
 * named text's as they first appear (each goes with its `parameter_name`). A carousel card's
 * variables carry the card's `prefix` before the placeholder's own name.
 */
export function parameterOrder(names: readonly string[], prefix = ''): string[] {
  const unique = [...new Set(names)];
  const numbers = unique.map((name) => (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)) ? Number(name.slice(prefix.length)) : NaN));
  if (numbers.some(Number.isNaN)) return unique;
  return unique.map((name, i) => ({ name, number: numbers[i]! })).sort((a, b) => a.number - b.number).map(({ name }) => name);
}

const placeholdersOf = (text: string) => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!);

/** The body's values, in WhatsApp's order (`parameterOrder`): its body parameters. */
export function bodyParameters(body: string, values: ReadonlyMap<string, string>): string[] {
  return parameterOrder(placeholdersOf(body)).map((name) => values.get(name) ?? '');
}

/**
 * What WhatsApp takes beyond the body's values: the body's parameter names (named templates), the
 * header and the buttons, from the version's components. Optional variables left out leave out
 * their parameter (a quick reply without a payload); an imported version has none of these.
 */
export function templateParameters(version: Pick<TemplateVersion, 'body' | 'components'>, values: ReadonlyMap<string, string>): TemplateParameters {
  const components = version.components;
  if (!components) return {};
  // Meta documents `parameter_name` for NAMED templates only: a positional one's header goes by position.
  const named = components.parameterFormat === 'NAMED';
  const header = components.header && headerParameter(components.header, values, named);
  const buttons = buttonParameters(components.buttons, values);
  const offerEnd = components.limitedTimeOffer && values.get(components.limitedTimeOffer.variable);
  const cards = components.cards?.map((card, index) => {
    const cardHeader = card.header && headerParameter(card.header, values, named);
    const cardButtons = buttonParameters(card.buttons, values);
    const cardBody = parameterOrder(card.body, cardVariablePrefix(index)).map((name) => values.get(name) ?? '');
    return { ...(cardHeader ? { header: cardHeader } : {}), bodyParameters: cardBody, ...(cardButtons.length ? { buttons: cardButtons } : {}) };
  });
  return {
    ...(named ? { bodyParameterNames: parameterOrder(placeholdersOf(version.body)) } : {}),
    ...(header ? { header } : {}),
    ...(offerEnd ? { offerExpirationTimeMs: Number(offerEnd) } : {}),
    ...(buttons.length ? { buttons } : {}),
    ...(cards ? { cards } : {}),
  };
}

/** Buttons whose variable was given; an optional one left out (a quick reply's payload) sends none. */
const buttonParameters = (buttons: NonNullable<TemplateVersion['components']>['buttons'], values: ReadonlyMap<string, string>) =>
  buttons.flatMap(({ index, subType, variable }) => {
    const value = values.get(variable);
    return value === undefined ? [] : [{ index, subType, value }];
  });

const MEDIA_TYPES = { IMAGE: 'image', VIDEO: 'video', DOCUMENT: 'document' } as const;

function headerParameter(header: NonNullable<NonNullable<TemplateVersion['components']>['header']>, values: ReadonlyMap<string, string>, named: boolean): HeaderParameter | undefined {
  const [first, second, third, fourth] = header.variables.map((name) => values.get(name));
  if (first === undefined) return undefined;
  switch (header.format) {
    case 'TEXT':
      return { type: 'text', text: first, ...(named && header.parameterName ? { parameterName: header.parameterName } : {}) };
    case 'IMAGE':
    case 'VIDEO':
    case 'DOCUMENT':
      return { type: MEDIA_TYPES[header.format], link: first };
    case 'LOCATION':
      return { type: 'location', latitude: first, longitude: second ?? '', ...(third ? { name: third } : {}), ...(fourth ? { address: fourth } : {}) };
  }
}
