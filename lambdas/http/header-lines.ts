type MultiValueHeaders = Record<string, string[] | undefined> | null;

/** What a request says of its header lines: the multi-value map, and the names as sent (http-stack.ts keeps them). */
export interface SentHeaderLines {
  multiValueHeaders?: MultiValueHeaders;
  rawMultiValueHeaders?: MultiValueHeaders;
}

/**
 * The values of every line of header `name` (lower-case) the request carried, whatever the case
 * of their names. API Gateway hands the function a repeated header's last value, and Middy's
 * normaliser folds two names that differ only in case into one, so only the lines as sent
 * (`rawMultiValueHeaders`) show that a header came twice.
 */
export const headerLinesSent = (event: SentHeaderLines, name: string): string[] =>
  Object.entries(event.rawMultiValueHeaders ?? event.multiValueHeaders ?? {})
    .filter(([sent]) => sent.toLowerCase() === name)
    .flatMap(([, values]) => values ?? []);
