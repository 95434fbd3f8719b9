/** What zod reports, reduced to what a message needs; zod and zod/mini errors both fit. */
interface Issues {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}

/** Each issue as `path: message`, the path dotted; `whole` names the value itself when the path is empty. */
export const issueTexts = ({ issues }: Issues, whole = ''): string[] => issues.map((issue) => `${issue.path.map(String).join('.') || whole}: ${issue.message}`);

/** The issues as one line for a person to read: `to: Invalid input; variables.name: Too long`. */
export const issueLine = (error: Issues, whole = ''): string => issueTexts(error, whole).join('; ');
