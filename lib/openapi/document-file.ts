import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-paths';

/** Where the committed OpenAPI document lives; `npm run openapi` writes it, a unit test keeps it current. */
export const OPENAPI_DOCUMENT_PATH = join(PROJECT_ROOT, 'docs', 'openapi.json');

/** The file's exact text: 2-space JSON and a final newline, so regenerating an unchanged API changes no byte. */
export const renderDocument = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;
