import type { MetadataJson } from 'libphonenumber-js/core';
import libraryMetadata from 'libphonenumber-js/metadata.min.json';

/** Where a country's number formats sit in libphonenumber-js's metadata (its v4 layout). */
const FORMATS = 4;

/**
 * The phone metadata the functions bundle (lambdas/domain/phones/metadata.json): the library's
 * own "min" metadata for every country, without the number formats. We parse, validate and
 * write E.164, none of which formats a number; the formats are 50 of its 83 KB (decision 66).
 */
export function phoneMetadata(): MetadataJson {
  const metadata = structuredClone(libraryMetadata) as unknown as { countries: Record<string, unknown[]>; nonGeographic?: Record<string, unknown[]> };
  for (const country of [...Object.values(metadata.countries), ...Object.values(metadata.nonGeographic ?? {})]) country[FORMATS] = [];
  return metadata as unknown as MetadataJson;
}
