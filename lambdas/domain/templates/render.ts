import { PLACEHOLDER, type TemplateVersion } from './template';

export interface VariableCheck {
  missing: string[];
  unknown: string[];
}

/** Which required variables are missing and which given names the version does not define. */
export function checkVariables(version: Pick<TemplateVersion, 'variableDefinitions'>, given: ReadonlyMap<string, string>): VariableCheck {
  const defined = new Set(version.variableDefinitions.map((definition) => definition.name));
  return {
    missing: version.variableDefinitions.filter((definition) => definition.required && !given.has(definition.name)).map((definition) => definition.name),
    unknown: [...given.keys()].filter((name) => !defined.has(name)),
  };
}

/** The body with each `{{name}}` replaced by its value; optional ones left out render empty. */
export function renderBody(body: string, values: ReadonlyMap<string, string>): string {
  return body.replace(PLACEHOLDER, (_, name: string) => values.get(name) ?? '');
}

/** Values in the order their placeholders appear in the body: WhatsApp's body parameters. */
export function bodyParameters(body: string, values: ReadonlyMap<string, string>): string[] {
  return [...body.matchAll(PLACEHOLDER)].map((match) => values.get(match[1]!) ?? '');
}
