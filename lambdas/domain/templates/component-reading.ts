import { createHash } from 'node:crypto';
import type { GraphTemplate, GraphTemplateComponent } from '../providers/whatsapp-templates';
import { cardVariablePrefix, PLACEHOLDER } from './render';
import type { TemplateComponents, TemplateVersion } from './template';

/**
 * Meta's template components read as a version's content (docs/api.md#templates-from-whatsapp):
 * the variables a send gives, where each goes in WhatsApp's components, and the parts a send
 * cannot fill (decisions 143, 145).
 */

/** What a version is made of, from Meta's components. */
export type SyncedContent = Pick<TemplateVersion, 'body' | 'variableDefinitions' | 'components' | 'unsupportedParts'> & { contentDigest: string };

/** The variable a limited-time offer's expiry is sent in (Unix time in milliseconds). */
export const OFFER_EXPIRATION_VARIABLE = 'offer_expiration_time_ms';

/** Meta's template as version content; undefined for a template without a body (nothing to send). */
export function syncedContent(template: Pick<GraphTemplate, 'parameter_format' | 'components'>): SyncedContent | undefined {
  const component = (type: string) => template.components.find((c) => c.type.toUpperCase() === type);
  const body = component('BODY')?.text;
  if (!body) return undefined;

  const buttons = buttonBindings(component('BUTTONS'));
  // An authentication template's body is Meta's own ("{{1}} is your verification code"): its
  // placeholder is the one-time password, which WhatsApp holds to the button's rules (error 100).
  const bodyType = buttons.some((button) => button.type === 'otp_code') ? 'otp_code' : 'text';
  const variables: TemplateVersion['variableDefinitions'] = placeholderNames(body).map((name) => ({ name, type: bodyType, required: true }));
  const header = headerBinding(component('HEADER'));
  if (header) variables.push(...header.variables);
  const offer = component('LIMITED_TIME_OFFER')?.limited_time_offer?.has_expiration === true;
  if (offer) variables.push({ name: OFFER_EXPIRATION_VARIABLE, type: 'timestamp_ms', required: true });
  variables.push(...buttons.map(buttonVariable));
  const cards = (component('CAROUSEL')?.cards ?? []).map((card, index) => cardBinding(card.components, cardVariablePrefix(index)));
  for (const card of cards) variables.push(...card.variables);

  const components: TemplateComponents = {
    parameterFormat: template.parameter_format,
    ...(header ? { header: header.binding } : {}),
    ...(offer ? { limitedTimeOffer: { variable: OFFER_EXPIRATION_VARIABLE } } : {}),
    buttons: buttons.map(buttonTarget),
    ...(cards.length ? { cards: cards.map((card) => card.binding) } : {}),
  };
  const unsupported = unsupportedParts(template.components, TEMPLATE_PARTS);
  // A send gives at most 50 variables: more would make every send of it incomplete.
  if (variables.length > MAX_VARIABLES) unsupported.push(`more than ${MAX_VARIABLES} variables (${variables.length})`);
  return {
    body,
    variableDefinitions: variables.length > MAX_VARIABLES ? [] : variables,
    components,
    ...(unsupported.length ? { unsupportedParts: unsupported } : {}),
    contentDigest: digest({ parameterFormat: template.parameter_format, components: template.components }),
  };
}

const MAX_VARIABLES = 50;
const buttonVariable = ({ variable, type, required }: ButtonBinding) => ({ name: variable, type, required });
const buttonTarget = ({ index, subType, variable }: ButtonBinding) => ({ index, subType, variable });

/**
 * One card of a media card carousel (decision 145): its variables are named `card_<n>_` and then as
 * the template's own (`card_0_header_image`, `card_0_1`, `card_0_button_1`); its body's values go
 * in placeholder order, as WhatsApp takes a positional body's.
 */
function cardBinding(parts: GraphTemplateComponent[], prefix: string) {
  const part = (type: string) => parts.find((c) => c.type.toUpperCase() === type);
  const header = headerBinding(part('HEADER'), prefix);
  const text = part('BODY')?.text ?? '';
  // Meta's carousel send gives every card's quick reply its payload, so a card's is required.
  const buttons = buttonBindings(part('BUTTONS'), prefix, true);
  return {
    variables: [...(header?.variables ?? []), ...placeholderNames(text).map((name) => ({ name: `${prefix}${name}`, type: 'text', required: true })), ...buttons.map(buttonVariable)],
    binding: { ...(header ? { header: header.binding } : {}), body: [...text.matchAll(PLACEHOLDER)].map((match) => `${prefix}${match[1]!}`), buttons: buttons.map(buttonTarget) },
  };
}

/**
 * What a send takes values for, or needs nothing for: every part of Meta's templates this API can
 * send, in a template and in a carousel's card. Any other part (a product header, a catalog or
 * multi-product button, or one Meta adds later) needs values a send cannot give, so WhatsApp
 * would refuse every message (decision 143).
 */
interface SendableParts {
  components: ReadonlySet<string>;
  headerFormats: ReadonlySet<string>;
  /** Buttons that take a value (URL, OTP, COPY_CODE, QUICK_REPLY) or need none: a phone call, a call on WhatsApp, a Flow (its token is optional). */
  buttons: ReadonlySet<string>;
}
const TEMPLATE_PARTS: SendableParts = {
  components: new Set(['HEADER', 'BODY', 'FOOTER', 'BUTTONS', 'LIMITED_TIME_OFFER', 'CAROUSEL']),
  headerFormats: new Set(['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']),
  buttons: new Set(['URL', 'OTP', 'COPY_CODE', 'QUICK_REPLY', 'PHONE_NUMBER', 'VOICE_CALL', 'FLOW']),
};
/** A media card: an image or video, a body, quick-reply, URL and phone-number buttons (a product card is not one). */
const CARD_PARTS: SendableParts = {
  components: new Set(['HEADER', 'BODY', 'BUTTONS']),
  headerFormats: new Set(['IMAGE', 'VIDEO']),
  buttons: new Set(['URL', 'QUICK_REPLY', 'PHONE_NUMBER']),
};

/** The parts of Meta's template a send cannot fill, named as Meta names them: `HEADER PRODUCT`, `CATALOG button`, `CAROUSEL SPM button`. */
function unsupportedParts(components: GraphTemplateComponent[], sendable: SendableParts, prefix = ''): string[] {
  return [
    ...new Set(
      components.flatMap((component): string[] => {
        const type = component.type.toUpperCase();
        if (!sendable.components.has(type)) return [`${prefix}${type}`];
        if (type === 'CAROUSEL') return (component.cards ?? []).flatMap((card) => unsupportedParts(card.components, CARD_PARTS, 'CAROUSEL '));
        const format = component.format?.toUpperCase();
        if (type === 'HEADER' && format && !sendable.headerFormats.has(format)) return [`${prefix}HEADER ${format}`];
        return (component.buttons ?? []).map((button) => button.type.toUpperCase()).filter((button) => !sendable.buttons.has(button)).map((button) => `${prefix}${button} button`);
      }),
    ),
  ];
}

const placeholderNames = (text: string) => [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];

function headerBinding(header: GraphTemplateComponent | undefined, prefix = ''): { binding: NonNullable<TemplateComponents['header']>; variables: TemplateVersion['variableDefinitions'] } | undefined {
  const format = header?.format?.toUpperCase();
  switch (format) {
    case 'TEXT': {
      const [name] = placeholderNames(header?.text ?? '');
      if (!name) return undefined;
      return { binding: { format, variables: [`${prefix}header_${name}`], parameterName: name }, variables: [{ name: `${prefix}header_${name}`, type: 'text', required: true }] };
    }
    case 'IMAGE':
    case 'VIDEO':
    case 'DOCUMENT': {
      const type = format.toLowerCase();
      return { binding: { format, variables: [`${prefix}header_${type}`] }, variables: [{ name: `${prefix}header_${type}`, type, required: true }] };
    }
    case 'LOCATION': {
      const variables = [
        { name: `${prefix}header_latitude`, type: 'number', required: true },
        { name: `${prefix}header_longitude`, type: 'number', required: true },
        { name: `${prefix}header_location_name`, type: 'text', required: false },
        { name: `${prefix}header_location_address`, type: 'text', required: false },
      ];
      return { binding: { format, variables: variables.map((variable) => variable.name) }, variables };
    }
    default:
      return undefined;
  }
}

/**
 * Meta creates an authentication template's one-time-password button as `OTP` and returns it as a
 * URL button to this link (`…?otp_type=COPY_CODE&code=otp{{1}}`): its value is the code.
 */
const OTP_LINK = 'https://www.whatsapp.com/otp/code/';

interface ButtonBinding {
  index: number;
  subType: 'url' | 'quick_reply' | 'copy_code';
  variable: string;
  type: string;
  required: boolean;
}

/**
 * Buttons that take a value when sent: a URL with a placeholder (its suffix), a one-time-password
 * button (the code, sent as a URL parameter as Meta asks, whether Meta names it OTP or returns it as its OTP link), a copy-code button (the coupon code) and a
 * quick reply (its payload: optional, but required in a carousel's card). Phone-number and other buttons take none.
 */
function buttonBindings(buttons: GraphTemplateComponent | undefined, prefix = '', inCard = false): ButtonBinding[] {
  return (buttons?.buttons ?? []).flatMap((button, index): ButtonBinding[] => {
    const variable = `${prefix}button_${index}`;
    switch (button.type.toUpperCase()) {
      case 'URL':
        if (button.url?.startsWith(OTP_LINK)) return [{ index, subType: 'url', variable, type: 'otp_code', required: true }];
        return button.url && placeholderNames(button.url).length ? [{ index, subType: 'url', variable, type: 'url_suffix', required: true }] : [];
      case 'OTP':
        return [{ index, subType: 'url', variable, type: 'otp_code', required: true }];
      case 'COPY_CODE':
        return [{ index, subType: 'copy_code', variable, type: 'coupon_code', required: true }];
      case 'QUICK_REPLY':
        return [{ index, subType: 'quick_reply', variable, type: 'payload', required: inCard }];
      default:
        return [];
    }
  });
}

/** Key order fixed, so the same content always has the same digest. */
export function digest(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex').slice(0, 32);
}
