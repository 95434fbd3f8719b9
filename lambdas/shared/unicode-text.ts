/**
 * Text as Unicode: a UTF-16 surrogate without its pair (half an emoji) cannot be written as UTF-8,
 * so WhatsApp, our stored JSON and an integration's strict JSON reader would each refuse it.
 */

/** With the `u` flag a whole pair reads as one code point, never as `Cs`: only a lone half matches. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** Text without control characters (C0, DEL, C1): a name that is printed on one line of a tab-separated list. */
export const PRINTABLE = /^\P{Cc}*$/u;
/** What a name that is not PRINTABLE is told. */
export const NOT_PRINTABLE = 'must not hold control characters (a line break, a tab)';

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/** The text with each lone surrogate replaced by U+FFFD, the replacement character. */
export const withoutLoneSurrogates = (text: string): string => text.replace(LONE_SURROGATES, '\uFFFD');

/** The text's first `count` characters (code points): a cut by UTF-16 units could leave half an emoji. */
export function firstCharacters(text: string, count: number): string {
  if (text.length <= count) return text;
  let end = 0;
  for (let taken = 0; taken < count && end < text.length; taken++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** The text's first `count` characters and `…` when it has more: a value quoted back in an error message, kept short. */
export function shortened(text: string, count: number): string {
  const kept = firstCharacters(text, count);
  return kept.length < text.length ? `${kept}…` : text;
}

/**
 * At most `count` names, each shortened to 64 characters (and `quote`d), then "and N more": an
 * error message that names what a caller sent stays small whatever was sent (docs/api.md#limits).
 */
export function someNames(names: readonly string[], { count = 5, quote = '' } = {}): string {
  const named = names.slice(0, count).map((name) => `${quote}${shortened(name, 64)}${quote}`).join(', ');
  return names.length > count ? `${named} and ${names.length - count} more` : named;
}

/**
 * The parsed JSON value with every string (and name) holding a lone surrogate holding U+FFFD in its
 * place: a provider's signed body is read, not refused, as one customer's half emoji must not
 * refuse the batch it came in with (decision 51), which Meta would send again for days.
 */
export function withWellFormedText(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutLoneSurrogates(value);
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) return value.map((inner) => withWellFormedText(inner, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [withoutLoneSurrogates(key), withWellFormedText(inner, depth + 1)]));
}
